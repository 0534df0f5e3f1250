/*
 * ap_client.c - the session of a thread client (ap_client.h): a
 * subscription that survives drops, commands matched by id, each event
 * decoded, de-duplicated, then handed to the callbacks and the assembler.
 * The bytes move in client_io.c; nothing here does I/O of its own except
 * the epoll descriptor of ap_client_fd.
 *
 * The reading path (an SSE body or WebSocket messages to events and
 * responses) takes any bytes: tests/fuzz/client_read.c pushes them through
 * ap_client_read_sse and ap_client_read_ws, which need no connection.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "ap_assemble.h"
#include "ap_client.h"
#include "ap_replay.h"
#include "ap_route.h"
#include "aps/sse.h"
#include "client_internal.h"
#include "client_io.h"

#define MAX_ID 256           /* eventIds and runIds kept to resume by (longer: not resumable by id) */
#define MAX_FDS 64

struct ap_client {
    char *url, *thread;
    ap_client_options o;
    ap_client_callbacks cb;
    apc_io *io;
    /* the subscription */
    int subscribed;
    char *request;               /* its EventStreamRequest, without a resume point */
    apc_conn *stream;            /* SSE body, or the WebSocket (commands go on it too) */
    int stream_fallback;         /* the server has only .../stream */
    int stream_ok;               /* the stream got a byte of the protocol since it opened */
    int resuming;                /* the stream was opened to resume */
    ap_client_resume way;        /* SSE: how the next resume says where (a way the server refuses is left) */
    int idle;                    /* the run ended and the server ended the stream: reopened by the next command */
    int64_t resume_at;           /* 0: no resume scheduled */
    unsigned resumes_in_row;
    uint64_t resumes;
    char *sse_storage;
    aps_sse_parser sse;
    /* WebSocket: the client's own commands on the socket */
    uint64_t subscribe_id, reconnect_id;
    int subscribe_answered, subscribe_refused;
    int waiting_reconnect;       /* events before the reconnect's answer are the subscribe's replay */
    /* commands */
    uint64_t next_id;
    uint64_t cmd_id;             /* the user's command in flight (0: none) */
    int cmd_starts_run;          /* it is run.start or input.respond: its answer names the run to wait for */
    int cmd_done;
    apc_conn *post;              /* SSE: its POST */
    char *resp;                  /* the response, padded */
    size_t resp_len;
    aps_arena resp_arena;
    ap_message_t resp_msg;
    ap_client_response response;
    /* reading */
    aps_arena arena;             /* one event at a time */
    aps_assembler assembler;
    aps_asm_reader lenient;
    uint64_t position;
    /* de-duplication: a window of eventId hashes (ring + open addressing) */
    uint64_t *ring, *table;
    size_t window, ring_next, ring_count, table_mask;
    char last_id[MAX_ID];
    size_t last_id_len;
    char run_id[MAX_ID];
    size_t run_id_len;
    /* the run */
    char want_run[MAX_ID];       /* the run_id run.start / input.respond answered: other runs' ends are not its end */
    size_t want_run_len;
    ap_client_run_end run_end;
    int run_ended;               /* the last run ended (a stream the server then ends is idle, no drop) */
    uint64_t ends, ends_taken;   /* root lifecycle ends of the client's runs, and those run_until_done returned */
    ap_client_interrupt interrupt;
    int has_interrupt;
    aps_arena int_arena;
    /* heartbeats */
    int64_t hb_last_ms, hb_period_ms;
    char stopped_why[APS_ERROR_MESSAGE_MAX]; /* why the reading path stopped the stream ("": memory) */
    uint64_t hb_events_then;
    /* state */
    uint64_t events, repeats, missed;
    int in_callback;
    int cancelled;               /* __atomic */
    int fatal;
    aps_error fatal_err;
    int epfd;
    int fds[MAX_FDS];
    size_t nfds;
};

/* ---- errors ------------------------------------------------------------------- */

static void report(ap_client *c, aps_status code, const char *fmt, const char *detail)
{
    aps_error e = APS_ERROR_INIT;
    (void)aps_error_set(&e, code, 0, fmt, detail != NULL ? detail : "");
    if (c->cb.on_error != NULL) {
        c->in_callback++;
        c->cb.on_error(c->cb.user, &e);
        c->in_callback--;
    }
}

/* The stream is lost for good: said once, returned by the call that steps. */
static void fail(ap_client *c, aps_status code, const char *fmt, const char *detail)
{
    if (c->fatal)
        return;
    c->fatal = 1;
    (void)aps_error_set(&c->fatal_err, code, 0, fmt, detail != NULL ? detail : "");
    if (c->cb.on_error != NULL) {
        c->in_callback++;
        c->cb.on_error(c->cb.user, &c->fatal_err);
        c->in_callback--;
    }
}

static aps_status take_fatal(ap_client *c, aps_error *err)
{
    if (err != NULL && err->code == APS_OK)
        *err = c->fatal_err;
    return c->fatal_err.code;
}

/* ---- de-duplication ------------------------------------------------------------ */

static uint64_t id_hash(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
    h ^= h >> 29;
    return h != 0 ? h : 1; /* 0 marks an empty slot */
}

static int seen_find(const ap_client *c, uint64_t h, size_t *slot)
{
    size_t i = (size_t)h & c->table_mask;
    while (c->table[i] != 0) {
        if (c->table[i] == h) {
            *slot = i;
            return 1;
        }
        i = (i + 1) & c->table_mask;
    }
    *slot = i;
    return 0;
}

/* Removes `h` from the table, shifting back the entries of its cluster (linear probing). */
static void seen_remove(ap_client *c, uint64_t h)
{
    size_t i, j;
    if (!seen_find(c, h, &i))
        return;
    c->table[i] = 0;
    for (j = (i + 1) & c->table_mask; c->table[j] != 0; j = (j + 1) & c->table_mask) {
        uint64_t v = c->table[j];
        size_t home = (size_t)v & c->table_mask;
        /* v may move to i when i lies cyclically between its home and j */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            c->table[i] = v;
            c->table[j] = 0;
            i = j;
        }
    }
}

/* 1 when eventId `id` was seen (a repeat); else remembers it, forgetting the oldest past the window. */
static int seen(ap_client *c, const char *id, size_t len)
{
    uint64_t h = id_hash(id, len);
    size_t slot;
    if (seen_find(c, h, &slot))
        return 1;
    if (c->ring_count == c->window) {
        seen_remove(c, c->ring[c->ring_next]);
        c->ring_count--;
        (void)seen_find(c, h, &slot);
    }
    c->table[slot] = h;
    c->ring[c->ring_next] = h;
    c->ring_next = (c->ring_next + 1) % c->window;
    c->ring_count++;
    return 0;
}

/* ---- reading ------------------------------------------------------------------- */

static int raw_string(aps_arena *arena, aps_json_raw obj, const char *name, aps_slice *out)
{
    aps_json_raw v;
    aps_json_reader r;
    out->ptr = NULL;
    out->len = 0;
    if (obj.ptr == NULL || aps_json_raw_member(obj, name, strlen(name), arena, &v, NULL) != APS_OK)
        return 0;
    aps_json_reader_init(&r, v.ptr, v.len, arena, NULL);
    return aps_json_read_string(&r, out, NULL) == APS_OK;
}

static aps_json_raw raw_member(aps_arena *arena, aps_json_raw obj, const char *name)
{
    aps_json_raw v = { NULL, 0 };
    if (obj.ptr == NULL || aps_json_raw_member(obj, name, strlen(name), arena, &v, NULL) != APS_OK) {
        v.ptr = NULL;
        v.len = 0;
    }
    return v;
}

static void keep_id(char *dst, size_t *dst_len, aps_slice id)
{
    size_t i;
    *dst_len = 0;
    if (id.ptr == NULL || id.len >= MAX_ID)
        return;
    for (i = 0; i < id.len; i++)
        if ((unsigned char)id.ptr[i] < 0x20 || id.ptr[i] == 0x7f)
            return; /* it goes into a header: none rather than a broken one */
    memcpy(dst, id.ptr, id.len);
    *dst_len = id.len;
}

static char *arena_strndup(aps_arena *a, const char *p, size_t n)
{
    char *s = aps_arena_alloc(a, n + 1);
    if (s != NULL) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* Copies the interrupt of an input.requested event, so that it outlives the callback. */
static void take_interrupt(ap_client *c, aps_json_raw json, const ap_event_t *ev)
{
    aps_json_raw params = raw_member(&c->arena, json, "params"), data = raw_member(&c->arena, params, "data");
    ap_client_interrupt in;
    aps_slice id, *segs = NULL;
    size_t i, n = 0;
    memset(&in, 0, sizeof in);
    if (!raw_string(&c->arena, data, "interrupt_id", &id) && !raw_string(&c->arena, data, "interruptId", &id) &&
        !raw_string(&c->arena, data, "id", &id))
        return;
    aps_arena_reset(&c->int_arena);
    if (ev != NULL) {
        aps_namespace ns = ap_event_namespace(ev);
        n = ns.count;
        if (n > 0 && (segs = aps_arena_alloc(&c->int_arena, n * sizeof *segs)) == NULL)
            return;
        for (i = 0; i < n; i++) {
            char *s = aps_arena_alloc(&c->int_arena, ns.items[i].len + 1);
            if (s == NULL)
                return;
            memcpy(s, ns.items[i].ptr, ns.items[i].len);
            s[ns.items[i].len] = '\0';
            segs[i].ptr = s;
            segs[i].len = ns.items[i].len;
        }
    }
    in.ns = segs;
    in.ns_len = n;
    in.interrupt_id.ptr = arena_strndup(&c->int_arena, id.ptr, id.len);
    in.interrupt_id.len = id.len;
    in.payload = raw_member(&c->arena, data, "payload");
    if (in.payload.ptr != NULL) {
        in.payload.ptr = arena_strndup(&c->int_arena, in.payload.ptr, in.payload.len);
    }
    in.json.ptr = arena_strndup(&c->int_arena, json.ptr, json.len);
    in.json.len = json.len;
    if (in.interrupt_id.ptr == NULL || in.json.ptr == NULL)
        return;
    c->interrupt = in;
    c->has_interrupt = 1;
    if (c->cb.on_interrupt != NULL)
        c->cb.on_interrupt(c->cb.user, &c->interrupt);
}

/* Whether a root lifecycle event is another run's than the one the client started (a replay of the thread's past). */
static int other_run(ap_client *c, aps_json_raw json, const ap_event_t *ev)
{
    aps_slice run = { NULL, 0 };
    if (c->want_run_len == 0)
        return 0;
    if (ev != NULL && ev->has_run_id)
        run = ev->run_id;
    else if (!raw_string(&c->arena, json, "runId", &run) &&
             !raw_string(&c->arena, raw_member(&c->arena, raw_member(&c->arena, json, "params"), "data"), "run_id",
                         &run))
        return 0; /* no run named: taken as the client's */
    return run.len != c->want_run_len || memcmp(run.ptr, c->want_run, run.len) != 0;
}

/* The root lifecycle's `data.event`: how the run ended. */
static ap_client_run_end run_end_of(ap_client *c, aps_json_raw json)
{
    aps_slice what;
    aps_json_raw data = raw_member(&c->arena, raw_member(&c->arena, json, "params"), "data");
    if (!raw_string(&c->arena, data, "event", &what))
        return AP_CLIENT_RUN_COMPLETED;
    if (what.len == 6 && memcmp(what.ptr, "failed", 6) == 0)
        return AP_CLIENT_RUN_FAILED;
    if (what.len == 11 && memcmp(what.ptr, "interrupted", 11) == 0)
        return AP_CLIENT_RUN_INTERRUPTED;
    return AP_CLIENT_RUN_COMPLETED;
}

/* A command's response: the user's, or the client's own (subscribe, reconnect). */
static void on_response(ap_client *c, const char *text, size_t len, const ap_message_t *msg)
{
    uint64_t id = msg->kind == AP_MESSAGE_COMMAND_RESPONSE ? msg->u.command_response.id
                  : msg->u.error_response.id_is_null ? 0 : msg->u.error_response.id;
    int ok = msg->kind == AP_MESSAGE_COMMAND_RESPONSE;
    aps_json_raw obj = { text, len };
    if (id != 0 && id == c->subscribe_id) {
        c->subscribe_answered = 1;
        c->subscribe_refused = !ok;
        if (!ok)
            fail(c, APS_E_IO, "the server refused subscription.subscribe: %.400s", text);
        return;
    }
    if (id != 0 && id == c->reconnect_id) {
        aps_json_raw missed = raw_member(&c->arena, raw_member(&c->arena, obj, "result"), "missedEvents");
        c->reconnect_id = 0;
        c->waiting_reconnect = 0;
        if (!ok) {
            /* refused: the subscribe's replay is the stream, de-duplicated by eventId */
            report(c, APS_E_STATE, "the server refused subscription.reconnect: %.400s", text);
        } else if (missed.ptr != NULL) {
            aps_json_reader r;
            uint64_t lost = 0;
            aps_json_reader_init(&r, missed.ptr, missed.len, &c->arena, NULL);
            if (aps_json_read_uint64(&r, &lost, NULL) == APS_OK && lost > 0) {
                c->missed += lost;
                if (c->cb.on_miss != NULL)
                    c->cb.on_miss(c->cb.user, lost, 0);
            }
        }
        return;
    }
    if (c->cmd_id == 0 || (id != c->cmd_id && !(msg->kind == AP_MESSAGE_ERROR_RESPONSE && id == 0))) {
        char said[96];
        snprintf(said, sizeof said, "%" PRIu64, id);
        /* the server's ids cannot be trusted: an answer already taken may have been another command's */
        fail(c, APS_E_STATE, "a response with id %s answers no command in flight", said);
        return;
    }
    {
        char *copy = malloc(len + APS_PADDING + 1);
        aps_error err = APS_ERROR_INIT;
        if (copy == NULL)
            return;
        memcpy(copy, text, len);
        memset(copy + len, 0, APS_PADDING + 1);
        free(c->resp);
        c->resp = copy;
        c->resp_len = len;
        aps_arena_reset(&c->resp_arena);
        memset(&c->response, 0, sizeof c->response);
        if (ap_message_decode(copy, len, &c->resp_arena, &c->resp_msg, &err) != APS_OK)
            return;
        obj.ptr = copy;
        c->response.ok = c->resp_msg.kind == AP_MESSAGE_COMMAND_RESPONSE;
        c->response.msg = &c->resp_msg;
        c->response.json = copy;
        c->response.len = len;
        c->response.result = raw_member(&c->resp_arena, obj, "result");
        if (c->response.ok && c->cmd_starts_run) {
            /* the run to wait for; an answer that names none: any run's end is its end */
            aps_slice run;
            if (raw_string(&c->resp_arena, c->response.result, "run_id", &run) ||
                raw_string(&c->resp_arena, c->response.result, "runId", &run))
                keep_id(c->want_run, &c->want_run_len, run);
            else
                c->want_run_len = 0;
        }
        if (!c->response.ok) {
            (void)raw_string(&c->resp_arena, obj, "error", &c->response.error_code);
            (void)raw_string(&c->resp_arena, obj, "message", &c->response.error_message);
        }
        c->cmd_done = 1;
    }
}

static void asm_start(ap_client *c, const aps_asm_event *ev)
{
    ap_client_message_start m;
    if (c->cb.on_message_start == NULL)
        return;
    m.id = ev->id;
    m.role = ev->role;
    m.ns = ev->ns;
    m.ns_len = ev->ns_len;
    m.node = ev->node;
    c->cb.on_message_start(c->cb.user, &m);
}

/*
 * One message from the server (an SSE event's data, a WebSocket message):
 * a response goes to its command; an event is de-duplicated, delivered and
 * assembled. `sse_id`: the SSE `id:` (ptr NULL: none), the eventId when
 * the event carries none. Returns 0, or -1 when memory ran out.
 */
int apc_client_message(ap_client *c, const char *text, size_t len, aps_slice sse_id)
{
    ap_message_t msg;
    aps_error err; /* cleared, not initialised whole: it is over 500 bytes, and this runs per token */
    aps_json_raw json = { text, len };
    const ap_event_t *ev = NULL;
    aps_asm_event view;
    aps_slice id = { NULL, 0 }, run;
    aps_replay_meta meta;
    int have_view = 0;
    aps_error_clear(&err);
    aps_arena_reset(&c->arena);
    c->stream_ok = 1;
    if (ap_message_decode(text, len, &c->arena, &msg, &err) == APS_OK) {
        if (msg.kind == AP_MESSAGE_COMMAND_RESPONSE || msg.kind == AP_MESSAGE_ERROR_RESPONSE) {
            on_response(c, text, len, &msg);
            return 0;
        }
        if (msg.kind == AP_MESSAGE_EVENT)
            ev = &msg.u.event;
    }
    /* the place in the stream is the envelope's, whatever the schema says of the rest */
    if (ev != NULL && ev->has_event_id)
        id = ev->event_id;
    else if (!raw_string(&c->arena, json, "eventId", &id) && !raw_string(&c->arena, json, "event_id", &id))
        id = sse_id;
    if (c->waiting_reconnect) {
        c->repeats++; /* the new subscription's replay: the reconnect's answer says where the stream goes on */
        return 0;
    }
    if (id.ptr != NULL && id.len > 0 && seen(c, id.ptr, id.len)) {
        c->repeats++;
        return 0;
    }
    keep_id(c->last_id, &c->last_id_len, id);
    /* the envelope's runId: decoded, or (a rejected event) looked up in its text */
    if (ev != NULL ? (ev->has_run_id && (run = ev->run_id, 1)) : raw_string(&c->arena, json, "runId", &run))
        keep_id(c->run_id, &c->run_id_len, run);
    c->events++;
    c->resumes_in_row = 0;
    c->in_callback++;
    if (ev == NULL && c->cb.on_error != NULL) {
        /* said with where: the event by its number and eventId, the value by its JSON Pointer */
        aps_error said = APS_ERROR_INIT;
        (void)aps_error_set(&said, err.code != APS_OK ? err.code : APS_E_UNKNOWN, err.offset,
                            "event %" PRIu64 " (eventId %.*s) does not decode as the schema says, at %s: %s (assembled "
                            "as read)",
                            c->events, id.ptr != NULL ? (int)(id.len < 64 ? id.len : 64) : 4,
                            id.ptr != NULL ? id.ptr : "none", err.pointer[0] != '\0' ? err.pointer : "(root)",
                            err.code != APS_OK ? err.message : "not an event of the protocol");
        aps_error_set_pointer(&said, err.pointer);
        c->cb.on_error(c->cb.user, &said);
    }
    if (c->cb.on_event != NULL)
        c->cb.on_event(c->cb.user, ev, text, len);
    /* assembly: the decoded event as it is, or (rejected by the schema) read leniently, as apstream assemble does */
    if (ev != NULL) {
        if (ap_asm_event_from_message(&msg, c->o.strict, &c->arena, &view) != APS_OK) {
            c->in_callback--;
            return -1;
        }
        have_view = 1;
    } else {
        have_view = aps_asm_event_from_json(&c->lenient, text, len, 0, &view) == 1;
    }
    if (have_view && view.kind != APS_ASM_OTHER) {
        aps_status st;
        view.position = ++c->position;
        if (view.kind == APS_ASM_MESSAGE_START)
            asm_start(c, &view);
        st = aps_asm_feed(&c->assembler, &view, &err);
        if (st == APS_E_NOMEM) {
            c->in_callback--;
            return -1;
        }
    }
    if (ev != NULL) {
        aps_slice method = ap_event_method(ev);
        if (method.len == 15 && memcmp(method.ptr, "input.requested", 15) == 0)
            take_interrupt(c, json, ev);
        /* only a lifecycle event can end the run: the others are not looked at further (token streams) */
        if (method.len == 9 && memcmp(method.ptr, "lifecycle", 9) == 0 &&
            ap_event_replay_meta_text(text, len, ev, &c->arena, &meta, NULL) == APS_OK && meta.run == APS_RUN_END &&
            meta.ns.count == 0 && !other_run(c, json, ev)) {
            c->run_end = run_end_of(c, json);
            c->run_ended = 1;
            c->ends++;
            if (c->cb.on_run_end != NULL)
                c->cb.on_run_end(c->cb.user, c->run_end);
        }
    }
    c->in_callback--;
    return 0;
}

/* The assembler's callbacks, to the application's. */
static void asm_append(void *ctx, const aps_asm_message *m, uint64_t index, aps_asm_delta kind, aps_slice text)
{
    ap_client *c = ctx;
    c->cb.on_message_delta(c->cb.user, m, index, kind, text);
}

static void asm_message(void *ctx, const aps_asm_message *m)
{
    ap_client *c = ctx;
    if (c->cb.on_message_finish != NULL)
        c->cb.on_message_finish(c->cb.user, m);
}

static void asm_tool(void *ctx, const aps_asm_tool *t)
{
    ap_client *c = ctx;
    if (c->cb.on_tool != NULL)
        c->cb.on_tool(c->cb.user, t);
}

/* ---- SSE ----------------------------------------------------------------------- */

static aps_status sse_event(void *user, const aps_sse_event *ev)
{
    ap_client *c = user;
    aps_slice sse_id;
    sse_id.ptr = ev->last_id_len > 0 ? ev->last_id : NULL;
    sse_id.len = ev->last_id_len;
    return apc_client_message(c, ev->data, ev->data_len, sse_id) == 0 ? APS_OK : APS_E_NOMEM;
}

static aps_status sse_error(void *user, const aps_error *err)
{
    ap_client *c = user;
    snprintf(c->stopped_why, sizeof c->stopped_why, "%s", err->message);
    if (c->cb.on_error != NULL)
        c->cb.on_error(c->cb.user, err);
    return err->code; /* an event the client cannot read whole: the stream is dropped and resumed */
}

/* A comment: the server's miss (`: missed N events; oldest seq S`), or a heartbeat. */
static aps_status sse_comment(void *user, const char *text, size_t len, uint64_t offset)
{
    ap_client *c = user;
    char copy[APS_SSE_NAME_MAX + 1];
    uint64_t lost, oldest;
    int64_t now = apc_now_ms();
    (void)offset;
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (sscanf(copy, " missed %" SCNu64 " events; oldest seq %" SCNu64, &lost, &oldest) == 2) {
        c->missed += lost;
        if (c->cb.on_miss != NULL) {
            c->in_callback++;
            c->cb.on_miss(c->cb.user, lost, oldest);
            c->in_callback--;
        }
        return APS_OK;
    }
    /* a heartbeat: its period is learned from two with no event between them */
    if (c->hb_last_ms != 0 && c->events == c->hb_events_then && now - c->hb_last_ms > c->hb_period_ms)
        c->hb_period_ms = now - c->hb_last_ms;
    c->hb_last_ms = now;
    c->hb_events_then = c->events;
    return APS_OK;
}

void apc_client_sse_reset(ap_client *c)
{
    aps_sse_parser_init(&c->sse, c->sse_storage, c->o.max_message, NULL, sse_event, sse_error, c);
    aps_sse_parser_on_comment(&c->sse, sse_comment);
}

int apc_client_sse_bytes(ap_client *c, const char *bytes, size_t len)
{
    aps_error err = APS_ERROR_INIT;
    return aps_sse_parser_push(&c->sse, bytes, len, &err) == APS_OK ? 0 : -1;
}

/* ---- the stream ------------------------------------------------------------------ */

static void stream_done(void *user, const apc_done *d);

static int stream_data(void *user, const char *bytes, size_t len)
{
    ap_client *c = user;
    if (c->o.transport == AP_CLIENT_SSE)
        return apc_client_sse_bytes(c, bytes, len);
    return apc_client_message(c, bytes, len, (aps_slice){ NULL, 0 });
}

static void schedule_resume(ap_client *c, const char *why);

static int ws_command_text(ap_client *c, uint64_t id, const char *method, const char *params)
{
    size_t cap = strlen(method) + strlen(params) + 64;
    char *text = malloc(cap);
    int rc;
    if (text == NULL)
        return -1;
    snprintf(text, cap, "{\"id\":%" PRIu64 ",\"method\":\"%s\",\"params\":%s}", id, method, params);
    rc = apc_ws_send(c->stream, text, strlen(text)) == APS_OK ? 0 : -1;
    free(text);
    return rc;
}

/* A WebSocket, with the subscription on it when there is one. 0, or -1. */
static int open_socket(ap_client *c, int resuming)
{
    apc_handler h = { stream_data, stream_done, NULL };
    int refused = 0;
    h.user = c;
    if ((c->stream = apc_ws_open(c->io, c->thread, "stream/events", &h, &refused)) == NULL) {
        if (!refused)
            return -1;
        schedule_resume(c, "libwebsockets would not open a WebSocket");
        return 0;
    }
    c->stream_ok = 0;
    if (!c->subscribed)
        return 0;
    c->subscribe_id = c->next_id++;
    c->subscribe_answered = 0;
    if (ws_command_text(c, c->subscribe_id, "subscription.subscribe", c->request) != 0)
        return -1;
    if (resuming && c->last_id_len > 0 && c->o.resume != AP_CLIENT_RESUME_NEVER) {
        aps_json_writer w;
        char *params;
        int rc;
        aps_json_writer_init(&w, NULL);
        aps_json_write_object_begin(&w);
        if (c->run_id_len > 0) {
            aps_json_write_key(&w, "runId", 5);
            aps_json_write_string(&w, c->run_id, c->run_id_len);
        }
        aps_json_write_key(&w, "lastEventId", 11);
        aps_json_write_string(&w, c->last_id, c->last_id_len);
        aps_json_write_object_end(&w);
        params = apc_json_take(&w);
        c->reconnect_id = c->next_id++;
        rc = params != NULL ? ws_command_text(c, c->reconnect_id, "subscription.reconnect", params) : -1;
        free(params);
        if (rc != 0)
            return -1;
        c->waiting_reconnect = 1;
    }
    return 0;
}

/* The SSE subscription, resuming after the last eventId when there is one. 0, or -1. */
static int open_sse(ap_client *c)
{
    apc_handler h = { stream_data, stream_done, NULL };
    const char *headers[2] = { NULL, NULL };
    char header[MAX_ID + 32];
    size_t head = strlen(c->request) - 1, cap = strlen(c->request) + MAX_ID * 6 + 32;
    char *body = malloc(cap);
    int by_header = c->way == AP_CLIENT_RESUME_LAST_EVENT_ID;
    if (body == NULL)
        return -1;
    h.user = c;
    memcpy(body, c->request, head); /* the request without its closing brace */
    body[head] = '\0';
    if (c->last_id_len > 0 && c->way == AP_CLIENT_RESUME_SINCE_EVENT_ID) {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        aps_json_write_string(&w, c->last_id, c->last_id_len);
        snprintf(body + head, cap - head, "%s\"sinceEventId\":%.*s}", head > 1 ? "," : "",
                 (int)aps_json_writer_len(&w), aps_json_writer_data(&w));
        aps_json_writer_deinit(&w);
    } else {
        snprintf(body + head, cap - head, "}");
    }
    if (c->last_id_len > 0 && by_header) {
        snprintf(header, sizeof header, "last-event-id: %.*s", (int)c->last_id_len, c->last_id);
        headers[0] = header;
    }
    apc_client_sse_reset(c);
    c->stream = apc_http_post(c->io, c->thread, c->stream_fallback ? "stream" : "stream/events", body, strlen(body),
                              headers, 1, &h);
    free(body);
    c->stream_ok = 0;
    c->hb_last_ms = c->hb_period_ms = 0;
    return c->stream != NULL ? 0 : -1;
}

static int open_stream(ap_client *c, int resuming)
{
    c->resuming = resuming && c->last_id_len > 0;
    c->idle = 0;
    c->resume_at = 0;
    return c->o.transport == AP_CLIENT_SSE ? open_sse(c) : open_socket(c, resuming);
}

/* The stream dropped: resumed after a delay that doubles in a row, up to max_resumes. */
static void schedule_resume(ap_client *c, const char *why)
{
    int delay = c->o.resume_delay_ms;
    unsigned i;
    c->stream = NULL;
    if (c->o.resume == AP_CLIENT_RESUME_NEVER) {
        fail(c, APS_E_IO, "the stream dropped (%s), and resuming is off", why);
        return;
    }
    if (c->resumes_in_row >= c->o.max_resumes) {
        fail(c, APS_E_IO, "the stream dropped (%s), and resuming brought nothing, time after time", why);
        return;
    }
    report(c, APS_E_IO, "the stream dropped (%s): resuming", why);
    for (i = 0; i < c->resumes_in_row && delay < 10000; i++)
        delay *= 2;
    c->resumes_in_row++;
    c->resume_at = apc_now_ms() + delay;
}

static void stream_done(void *user, const apc_done *d)
{
    ap_client *c = user;
    char why[APS_ERROR_MESSAGE_MAX + APC_ERROR_PAGE_KEPT];
    int got_bytes = c->stream_ok;
    c->stream = NULL;
    c->waiting_reconnect = 0;
    c->reconnect_id = 0;
    if (d->end == APC_END_STATUS && d->status == 404 && c->o.transport == AP_CLIENT_SSE && !c->stream_fallback) {
        c->stream_fallback = 1; /* the protocol text's spelling of the stream path */
        if (open_stream(c, 1) != 0)
            fail(c, APS_E_NOMEM, "out of memory%s", "");
        return;
    }
    if (d->end == APC_END_UNREACHABLE && c->events == 0 && c->resumes == 0) {
        fail(c, APS_E_IO, "the server cannot be reached: %s", d->why != NULL ? d->why : "no connection");
        return;
    }
    if (d->end == APC_END_STATUS && d->status >= 400 && d->status < 500 && c->resuming &&
        c->o.transport == AP_CLIENT_SSE && c->way != AP_CLIENT_RESUME_NEVER) {
        /* the server does not take this way of saying where: the next one (the header, then none: a replay
           from the start, its repeats dropped by eventId) */
        snprintf(why, sizeof why, "resuming by %s was answered HTTP %ld: resuming by %s",
                 c->way == AP_CLIENT_RESUME_SINCE_EVENT_ID ? "sinceEventId" : "Last-Event-ID", d->status,
                 c->way == AP_CLIENT_RESUME_SINCE_EVENT_ID ? "Last-Event-ID" : "a replay from the start");
        report(c, APS_E_STATE, "%s", why);
        c->way = c->way == AP_CLIENT_RESUME_SINCE_EVENT_ID ? AP_CLIENT_RESUME_LAST_EVENT_ID : AP_CLIENT_RESUME_NEVER;
        if (open_stream(c, 1) != 0)
            fail(c, APS_E_NOMEM, "out of memory%s", "");
        return;
    }
    if (d->end == APC_END_STATUS && d->status >= 400 && d->status < 500 && c->events == 0) {
        snprintf(why, sizeof why, "HTTP %ld%s%.*s", d->status, d->len > 0 ? ": " : "", (int)d->len,
                 d->body != NULL ? d->body : "");
        fail(c, APS_E_IO, "the server refused the subscription: %s", why);
        return;
    }
    if (d->end == APC_END_CLOSED && c->o.transport == AP_CLIENT_SSE && aps_sse_parser_pending(&c->sse)) {
        schedule_resume(c, "the server ended it inside an event");
        return;
    }
    if (d->end == APC_END_CLOSED && c->run_ended) {
        c->idle = 1; /* the run ended and so did the stream: the next command that starts one reopens it */
        return;
    }
    switch (d->end) {
    case APC_END_STATUS:
        snprintf(why, sizeof why, "HTTP %ld", d->status);
        break;
    case APC_END_TOO_LARGE:
        snprintf(why, sizeof why, "a message over %zu bytes", c->o.max_message);
        break;
    case APC_END_BINARY:
        snprintf(why, sizeof why, "a binary WebSocket message");
        break;
    case APC_END_STOPPED:
        snprintf(why, sizeof why, "%s", c->stopped_why[0] != '\0' ? c->stopped_why : "out of memory");
        c->stopped_why[0] = '\0';
        break;
    case APC_END_CLOSED:
        snprintf(why, sizeof why, "the server ended it before the run's end");
        break;
    default:
        snprintf(why, sizeof why, "%.200s", d->why != NULL ? d->why : "the connection failed");
    }
    if (got_bytes)
        c->resumes_in_row = c->resumes_in_row > 0 ? c->resumes_in_row - 1 : 0;
    schedule_resume(c, why);
}

/* ---- commands ------------------------------------------------------------------ */

static void post_done(void *user, const apc_done *d)
{
    ap_client *c = user;
    c->post = NULL;
    if (d->end == APC_END_CLOSED && d->len > 0) {
        ap_message_t msg;
        aps_error err = APS_ERROR_INIT;
        aps_arena_reset(&c->arena);
        if (ap_message_decode(d->body, d->len, &c->arena, &msg, &err) == APS_OK &&
            (msg.kind == AP_MESSAGE_COMMAND_RESPONSE || msg.kind == AP_MESSAGE_ERROR_RESPONSE)) {
            on_response(c, d->body, d->len, &msg);
            if (!c->cmd_done)
                fail(c, APS_E_IO, "POST /commands answered another command's id: %.200s", d->body);
            return;
        }
        {
            char why[APS_ERROR_MESSAGE_MAX];
            snprintf(why, sizeof why, "HTTP %ld, %.200s", d->status, err.message);
            fail(c, APS_E_IO, "POST /commands answered something that is no response: %s", why);
        }
        return;
    }
    if (d->end == APC_END_CLOSED)
        fail(c, APS_E_IO, "POST /commands answered HTTP %s with no body", d->status == 404 ? "404" : "an empty");
    else if (d->end == APC_END_TOO_LARGE)
        fail(c, APS_E_IO, "the response to a command is over the size bound%s", "");
    else
        fail(c, APS_E_IO, "POST /commands failed: %s", d->why != NULL ? d->why : "the connection failed");
}

char *apc_json_take(aps_json_writer *w)
{
    char *out = NULL;
    if (aps_json_writer_status(w) == APS_OK && (out = malloc(aps_json_writer_len(w) + 1)) != NULL) {
        memcpy(out, aps_json_writer_data(w), aps_json_writer_len(w));
        out[aps_json_writer_len(w)] = '\0';
    }
    aps_json_writer_deinit(w);
    return out;
}

static aps_status busy(const ap_client *c, aps_error *err)
{
    if (c->in_callback)
        return aps_error_set(err, APS_E_STATE, 0, "called from a callback of the client");
    return APS_OK;
}

static int cancelled(ap_client *c)
{
    return __atomic_load_n(&c->cancelled, __ATOMIC_ACQUIRE);
}

aps_status ap_client_command(ap_client *c, const char *method, const char *params, ap_client_response *out,
                             aps_error *err)
{
    uint64_t id;
    int64_t until;
    size_t cap;
    char *text;
    aps_status st;
    aps_error_clear(err);
    if ((st = busy(c, err)) != APS_OK)
        return st;
    if (params == NULL)
        params = "{}";
    if (params[strspn(params, " \t\r\n")] != '{')
        return aps_error_set(err, APS_E_ARGUMENT, 0, "the params of %s are not a JSON object", method);
    if (c->fatal)
        return take_fatal(c, err);
    if (c->idle && c->subscribed && open_stream(c, 1) != 0)
        return aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    if (c->o.transport == AP_CLIENT_WEBSOCKET && c->stream == NULL) {
        if (c->resume_at != 0 || open_stream(c, 1) != 0)
            return aps_error_set(err, APS_E_IO, 0, "no WebSocket to send %s on", method);
    }
    id = c->next_id++;
    cap = strlen(method) + strlen(params) + 64;
    if ((text = malloc(cap)) == NULL)
        return aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    snprintf(text, cap, "{\"id\":%" PRIu64 ",\"method\":\"%s\",\"params\":%s}", id, method, params);
    c->cmd_id = id;
    c->cmd_done = 0;
    if (c->o.transport == AP_CLIENT_SSE) {
        apc_handler h = { NULL, post_done, NULL };
        h.user = c;
        c->post = apc_http_post(c->io, c->thread, "commands", text, strlen(text), NULL, 0, &h);
        st = c->post != NULL ? APS_OK : APS_E_NOMEM;
    } else {
        st = apc_ws_send(c->stream, text, strlen(text));
    }
    free(text);
    if (st != APS_OK) {
        c->cmd_id = 0;
        return aps_error_set(err, st, 0, "cannot send %s", method);
    }
    c->cmd_starts_run = strcmp(method, "run.start") == 0 || strcmp(method, "input.respond") == 0;
    if (c->cmd_starts_run)
        c->run_ended = 0; /* a run goes on */
    until = apc_now_ms() + c->o.command_timeout_ms;
    while (!c->cmd_done && !c->fatal && !cancelled(c) && apc_now_ms() < until) {
        aps_error ignored = APS_ERROR_INIT;
        if (ap_client_step(c, 50, &ignored) != APS_OK)
            break; /* fatal (said below) or out of memory */
    }
    c->cmd_id = 0;
    if (c->post != NULL) {
        apc_conn_close(c->post);
        c->post = NULL;
    }
    if (c->cmd_done) {
        if (out != NULL)
            *out = c->response;
        return APS_OK;
    }
    if (c->fatal)
        return take_fatal(c, err);
    if (cancelled(c))
        return aps_error_set(err, APS_E_STATE, 0, "cancelled");
    return aps_error_set(err, APS_E_IO, 0, "no response to %s in time", method);
}

aps_status ap_client_run_start(ap_client *c, const char *assistant_id, const char *input, ap_client_response *out,
                               aps_error *err)
{
    aps_json_writer w;
    char *params;
    aps_status st;
    aps_error_clear(err);
    if (!c->subscribed && (st = ap_client_subscribe(c, NULL, err)) != APS_OK)
        return st;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "assistant_id", 12);
    aps_json_write_string(&w, assistant_id, strlen(assistant_id));
    aps_json_write_key(&w, "input", 5);
    {
        aps_json_raw raw;
        raw.ptr = input != NULL ? input : "{}";
        raw.len = strlen(raw.ptr);
        aps_json_write_raw(&w, raw);
    }
    aps_json_write_object_end(&w);
    if ((params = apc_json_take(&w)) == NULL)
        return aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    st = ap_client_command(c, "run.start", params, out, err);
    free(params);
    return st;
}

aps_status ap_client_respond(ap_client *c, const ap_client_interrupt *in, const char *response,
                             ap_client_response *out, aps_error *err)
{
    aps_json_writer w;
    char *params;
    aps_status st;
    size_t i;
    aps_error_clear(err);
    if (in == NULL || response == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, 0, "no interrupt, or no response");
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "namespace", 9);
    aps_json_write_array_begin(&w);
    for (i = 0; i < in->ns_len; i++)
        aps_json_write_string(&w, in->ns[i].ptr, in->ns[i].len);
    aps_json_write_array_end(&w);
    aps_json_write_key(&w, "interrupt_id", 12);
    aps_json_write_string(&w, in->interrupt_id.ptr, in->interrupt_id.len);
    aps_json_write_key(&w, "response", 8);
    {
        aps_json_raw raw;
        raw.ptr = response;
        raw.len = strlen(response);
        aps_json_write_raw(&w, raw);
    }
    aps_json_write_object_end(&w);
    if ((params = apc_json_take(&w)) == NULL)
        return aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    st = ap_client_command(c, "input.respond", params, out, err);
    free(params);
    if (st == APS_OK)
        c->has_interrupt = 0;
    return st;
}

const ap_client_interrupt *ap_client_interrupt_last(const ap_client *c)
{
    return c->has_interrupt ? &c->interrupt : NULL;
}

/* ---- the subscription ---------------------------------------------------------- */

static char *request_json(const ap_client_subscription *sub)
{
    aps_json_writer w;
    size_t i;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "channels", 8);
    aps_json_write_array_begin(&w);
    if (sub == NULL || sub->channels == NULL) {
        static const char *const all[] = { "values", "updates", "messages", "tools", "lifecycle",
                                           "input", "checkpoints", "tasks", "custom" };
        for (i = 0; i < sizeof all / sizeof all[0]; i++)
            aps_json_write_string(&w, all[i], strlen(all[i]));
    } else {
        for (i = 0; i < sub->channels_len; i++)
            aps_json_write_string(&w, sub->channels[i], strlen(sub->channels[i]));
    }
    aps_json_write_array_end(&w);
    if (sub != NULL && sub->namespaces != NULL) {
        aps_json_write_key(&w, "namespaces", 10);
        aps_json_write_array_begin(&w);
        for (i = 0; i < sub->namespaces_len; i++) {
            const char *const *seg;
            aps_json_write_array_begin(&w);
            for (seg = sub->namespaces[i]; *seg != NULL; seg++)
                aps_json_write_string(&w, *seg, strlen(*seg));
            aps_json_write_array_end(&w);
        }
        aps_json_write_array_end(&w);
    }
    if (sub != NULL && sub->has_depth && sub->depth >= 0) {
        aps_json_write_key(&w, "depth", 5);
        aps_json_write_uint64(&w, (uint64_t)sub->depth);
    }
    aps_json_write_object_end(&w);
    return apc_json_take(&w);
}

aps_status ap_client_subscribe(ap_client *c, const ap_client_subscription *sub, aps_error *err)
{
    aps_status st;
    aps_error_clear(err);
    if ((st = busy(c, err)) != APS_OK)
        return st;
    if (c->subscribed)
        return aps_error_set(err, APS_E_STATE, 0, "already subscribed");
    if ((c->request = request_json(sub)) == NULL)
        return aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    c->subscribed = 1;
    if (c->o.transport == AP_CLIENT_SSE)
        return open_stream(c, 0) == 0 ? APS_OK : aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    if (c->stream != NULL) {
        /* the socket a command opened: the subscription goes on it */
        c->subscribe_id = c->next_id++;
        if (ws_command_text(c, c->subscribe_id, "subscription.subscribe", c->request) != 0)
            return aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    } else if (open_stream(c, 0) != 0) {
        return aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    }
    /* not waited for: a server may hold the answer until a run starts (the reference server does); a refusal
       comes through on_error and ends the stream (the next step returns it) */
    return APS_OK;
}

/* ---- the loop ------------------------------------------------------------------ */

/* Keeps the epoll set of ap_client_fd on the transport's sockets. */
static void sync_fd(ap_client *c)
{
    int fds[MAX_FDS];
    size_t n, i;
    if (c->epfd < 0)
        return;
    n = apc_io_sockets(c->io, fds, MAX_FDS);
    if (n > MAX_FDS)
        n = MAX_FDS;
    if (n == c->nfds && memcmp(fds, c->fds, n * sizeof fds[0]) == 0)
        return;
    for (i = 0; i < c->nfds; i++)
        (void)epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->fds[i], NULL);
    for (i = 0; i < n; i++) {
        struct epoll_event e;
        memset(&e, 0, sizeof e);
        e.events = EPOLLIN;
        e.data.fd = fds[i];
        (void)epoll_ctl(c->epfd, EPOLL_CTL_ADD, fds[i], &e);
    }
    memcpy(c->fds, fds, n * sizeof fds[0]);
    c->nfds = n;
}

aps_status ap_client_step(ap_client *c, int timeout_ms, aps_error *err)
{
    aps_status st;
    int64_t now;
    aps_error_clear(err);
    if ((st = busy(c, err)) != APS_OK)
        return st;
    if (c->fatal)
        return take_fatal(c, err);
    if (cancelled(c))
        timeout_ms = 0;
    if (c->resume_at != 0) {
        int64_t wait = c->resume_at - apc_now_ms();
        if (wait < timeout_ms)
            timeout_ms = wait > 0 ? (int)wait : 0;
    }
    apc_io_pump(c->io, timeout_ms);
    now = apc_now_ms();
    if (c->resume_at != 0 && now >= c->resume_at && !c->fatal) {
        c->resumes++;
        if (open_stream(c, 1) != 0)
            fail(c, APS_E_NOMEM, "out of memory%s", "");
    }
    if (c->stream != NULL && !c->fatal) {
        /* silence: too long (heartbeat_timeout_ms), or past the heartbeat the server showed */
        int64_t quiet = now - apc_conn_last_byte_ms(c->stream);
        int64_t limit = c->o.heartbeat_timeout_ms > 0 ? c->o.heartbeat_timeout_ms
                        : c->hb_period_ms > 0       ? 2 * c->hb_period_ms + 1000
                                                    : 0;
        if (limit > 0 && quiet > limit) {
            apc_conn_close(c->stream);
            c->stream = NULL;
            schedule_resume(c, "a heartbeat missed");
        }
    }
    sync_fd(c);
    if (c->fatal)
        return take_fatal(c, err);
    return APS_OK;
}

int ap_client_fd(ap_client *c)
{
    if (c->epfd < 0 && (c->epfd = epoll_create1(EPOLL_CLOEXEC)) >= 0)
        sync_fd(c);
    return c->epfd;
}

int ap_client_timeout_ms(const ap_client *c)
{
    int64_t wait;
    if (c->resume_at == 0)
        return 100;
    wait = c->resume_at - apc_now_ms();
    return wait < 0 ? 0 : wait < 100 ? (int)wait : 100;
}

aps_status ap_client_run_until_done(ap_client *c, int timeout_ms, ap_client_run_end *end, aps_error *err)
{
    int64_t until = timeout_ms > 0 ? apc_now_ms() + timeout_ms : INT64_MAX;
    aps_status st;
    aps_error_clear(err);
    if (end != NULL)
        *end = AP_CLIENT_RUN_NONE;
    /* the next end not yet returned: after an interrupt answered, the resumed run's */
    while (c->ends == c->ends_taken) {
        if (cancelled(c))
            return aps_error_set(err, APS_E_STATE, 0, "cancelled");
        if (apc_now_ms() >= until)
            return APS_OK;
        if (c->idle)
            return aps_error_set(err, APS_E_STATE, 0, "no run: the stream is idle");
        if ((st = ap_client_step(c, 100, err)) != APS_OK)
            return st;
    }
    c->ends_taken = c->ends;
    if (end != NULL)
        *end = c->run_end;
    return APS_OK;
}

void ap_client_cancel(ap_client *c)
{
    __atomic_store_n(&c->cancelled, 1, __ATOMIC_RELEASE);
    apc_io_wake(c->io);
}

void ap_client_counts(const ap_client *c, uint64_t *events, uint64_t *repeats, uint64_t *missed)
{
    if (events != NULL)
        *events = c->events;
    if (repeats != NULL)
        *repeats = c->repeats;
    if (missed != NULL)
        *missed = c->missed;
}

void apc_client_await(ap_client *c, uint64_t id)
{
    c->cmd_id = id;
    c->cmd_done = 0;
}

int apc_client_answered(const ap_client *c)
{
    return c->cmd_done;
}

int apc_client_run_ended(const ap_client *c)
{
    return c->run_ended;
}

/* ---- open, close --------------------------------------------------------------- */

static int thread_ok(const char *id)
{
    if (*id == '\0' || strlen(id) > 200)
        return 0;
    for (; *id != '\0'; id++)
        if (!((*id >= 'a' && *id <= 'z') || (*id >= 'A' && *id <= 'Z') || (*id >= '0' && *id <= '9') ||
              strchr("-._~:", *id) != NULL))
            return 0;
    return 1;
}

ap_client *apc_client_new(const ap_client_options *o, int connect, aps_error *err)
{
    ap_client *c;
    aps_asm_options ao;
    aps_asm_callbacks ac;
    size_t cap = 1;
    aps_error_clear(err);
    if (o == NULL || o->url == NULL || o->thread_id == NULL || !thread_ok(o->thread_id) ||
        (o->transport != AP_CLIENT_SSE && o->transport != AP_CLIENT_WEBSOCKET) ||
        (unsigned)o->resume > AP_CLIENT_RESUME_NEVER) {
        (void)aps_error_set(err, APS_E_ARGUMENT, 0, "%s",
                            o == NULL || o->url == NULL ? "no url"
                            : o->thread_id == NULL || !thread_ok(o->thread_id)
                                ? "thread_id takes letters, digits and - . _ ~ : (1 to 200)"
                                : "an unknown transport or way of resuming");
        return NULL;
    }
    if ((c = calloc(1, sizeof *c)) == NULL) {
        (void)aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
        return NULL;
    }
    c->o = *o;
    c->cb = o->callbacks;
    c->epfd = -1;
    c->next_id = 1;
    if (c->o.max_message == 0)
        c->o.max_message = AP_CLIENT_DEFAULT_MAX_MESSAGE;
    if (c->o.dedupe_window == 0)
        c->o.dedupe_window = AP_CLIENT_DEFAULT_DEDUPE_WINDOW;
    if (c->o.command_timeout_ms <= 0)
        c->o.command_timeout_ms = AP_CLIENT_DEFAULT_COMMAND_TIMEOUT_MS;
    if (c->o.max_resumes == 0)
        c->o.max_resumes = AP_CLIENT_DEFAULT_MAX_RESUMES;
    if (c->o.resume_delay_ms <= 0)
        c->o.resume_delay_ms = AP_CLIENT_DEFAULT_RESUME_DELAY_MS;
    if (c->o.resume == AP_CLIENT_RESUME_DEFAULT)
        c->o.resume = c->o.transport == AP_CLIENT_SSE ? AP_CLIENT_RESUME_SINCE_EVENT_ID : AP_CLIENT_RESUME_RECONNECT;
    c->way = c->o.resume;
    c->window = c->o.dedupe_window;
    while (cap < c->window * 4) /* a quarter full at most: short probes */
        cap <<= 1;
    c->table_mask = cap - 1;
    c->url = strdup(o->url);
    c->thread = strdup(o->thread_id);
    c->ring = calloc(c->window, sizeof *c->ring);
    c->table = calloc(cap, sizeof *c->table);
    c->sse_storage = c->o.transport == AP_CLIENT_SSE ? malloc(c->o.max_message) : NULL;
    aps_arena_init(&c->arena, NULL);
    aps_arena_init(&c->resp_arena, NULL);
    aps_arena_init(&c->int_arena, NULL);
    aps_asm_reader_init(&c->lenient);
    memset(&ao, 0, sizeof ao);
    ao.strict = o->strict;
    memset(&ac, 0, sizeof ac);
    ac.on_append = c->cb.on_message_delta != NULL ? asm_append : NULL; /* without it, the fast path */
    ac.on_message_done = asm_message;
    ac.on_tool_done = asm_tool;
    ac.ctx = c;
    aps_asm_init(&c->assembler, &ao, &ac);
    if (c->url == NULL || c->thread == NULL || c->ring == NULL || c->table == NULL ||
        (c->o.transport == AP_CLIENT_SSE && c->sse_storage == NULL)) {
        (void)aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
        ap_client_close(c);
        return NULL;
    }
    if (c->o.transport == AP_CLIENT_SSE)
        apc_client_sse_reset(c);
    if (connect && (c->io = apc_io_new(c->url, c->o.transport == AP_CLIENT_WEBSOCKET, c->o.max_message, err)) == NULL) {
        aps_error_set_pointer(err, "/url");
        ap_client_close(c);
        return NULL;
    }
    return c;
}

ap_client *ap_client_open(const ap_client_options *o, aps_error *err)
{
    return apc_client_new(o, 1, err);
}

void ap_client_close(ap_client *c)
{
    if (c == NULL)
        return;
    c->in_callback++;
    aps_asm_finish(&c->assembler); /* what is still open, as it stands */
    c->in_callback--;
    apc_io_free(c->io);
    aps_asm_deinit(&c->assembler);
    aps_asm_reader_deinit(&c->lenient);
    aps_arena_deinit(&c->arena);
    aps_arena_deinit(&c->resp_arena);
    aps_arena_deinit(&c->int_arena);
    if (c->epfd >= 0)
        close(c->epfd);
    free(c->resp);
    free(c->request);
    free(c->sse_storage);
    free(c->ring);
    free(c->table);
    free(c->url);
    free(c->thread);
    free(c);
}
