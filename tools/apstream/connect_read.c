/*
 * connect_read.c - the reading path of `apstream connect`: what a server
 * sends (SSE bytes, WebSocket messages, command responses) to verdicts. The
 * main subscription's events go through validate's checker (check.c), so a
 * live server and a capture get the same diagnostics, numbered by event;
 * here are only the rules a capture cannot show: a resume continues right
 * after the last event received (or the server says it missed), a filtered
 * subscription gets the matching subset, a command gets its own answer.
 * No I/O and no clock: the transports push bytes in, and the fuzz target
 * pushes anything.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap_replay.h"
#include "aps/sse.h"
#include "connect.h"

const char *cx_resume_key(cx_resume how)
{
    static const char *const keys[] = { "none", "since", "last-event-id", "since-event-id", "reconnect", "subscribe" };
    return (size_t)how < sizeof keys / sizeof keys[0] ? keys[how] : "none";
}

const char *cx_resume_name(cx_resume how)
{
    switch (how) {
    case CX_RESUME_SINCE:
        return "`since` in the request";
    case CX_RESUME_LAST_EVENT_ID:
        return "the Last-Event-ID header";
    case CX_RESUME_SINCE_EVENT_ID:
        return "`sinceEventId` in the request";
    case CX_RESUME_RECONNECT:
        return "subscription.reconnect";
    case CX_RESUME_SUBSCRIBE:
        return "a new subscription (subscription.reconnect refused)";
    default:
        return "a new subscription";
    }
}

void cx_error(cx_session *s, uint64_t line, const char *rule, const char *method, const char *pointer,
              const char *fmt, ...)
{
    char message[APS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    s->errors += (uint64_t)apstream_diag(s->out, line, "error", rule, method, pointer, "%s", message);
}

void cx_no_endpoint(cx_session *s, const char *what, long status)
{
    if (s->no_endpoint)
        return; /* one cause: the subscriptions and commands that follow get the same answer */
    s->no_endpoint = 1;
    cx_error(s, 0, "no-endpoint", NULL, NULL, "no protocol endpoint at %s (HTTP %ld to %s)", s->url, status, what);
}

void cx_note(cx_session *s, const char *fmt, ...)
{
    char message[APS_ERROR_MESSAGE_MAX];
    va_list ap;
    (void)s;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fprintf(stderr, "apstream connect: note: %s\n", message);
}

int cx_session_init(cx_session *s, const apstream_options *o, FILE *out)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->out = out;
    s->unfiltered = o->unfiltered;
    s->next_id = 1000000; /* clear of the ids a --start file is likely to use */
    aps_arena_init(&s->arena, NULL);
    if ((s->check = apstream_check_new(o, &ap_message_type, 0, out)) == NULL) {
        aps_arena_deinit(&s->arena);
        return -1;
    }
    return 0;
}

int cx_session_set_filter(cx_session *s, const char *json, size_t len, int main)
{
    aps_filter *f = main ? &s->main_filter : &s->filter;
    ap_event_stream_request_t req;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    memset(&dopt, 0, sizeof dopt);
    dopt.strict = 1;
    aps_arena_reset(&s->arena);
    st = aps_schema_decode(&ap_event_stream_request_type, json, len, &s->arena, &req, &dopt, &err);
    if (st == APS_OK)
        st = ap_filter_init_request(f, &req, &s->arena, &err);
    if (st != APS_OK) {
        fprintf(stderr, "apstream: error: the %s subscription's request: %s: %s\n", main ? "main" : "filtered",
                err.pointer[0] ? err.pointer : "(root)", err.code != APS_OK ? err.message : aps_status_str(st));
        return -1;
    }
    if (main)
        s->has_main_filter = 1;
    else
        s->has_filter = 1;
    return 0;
}

static void seqs_push(cx_session *s, cx_seqs *q, uint64_t seq)
{
    if (q->full)
        return;
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 256;
        uint64_t *v = cap <= CX_MAX_COMPARED ? realloc(q->v, cap * sizeof *v) : NULL;
        if (v == NULL) {
            q->full = 1;
            cx_note(s, "more events than the filter comparison keeps: it stops at %zu", q->n);
            return;
        }
        q->v = v;
        q->cap = cap;
    }
    q->v[q->n++] = seq;
}

/*
 * The filtered subscription got exactly the main one's events that match
 * its filter, in order. Only when the main subscription saw the whole run:
 * else what the filtered one should have got is unknown, and a difference
 * would only repeat the failure already reported.
 */
static void compare_filtered(cx_session *s)
{
    size_t i, k = s->expect.n < s->got.n ? s->expect.n : s->got.n;
    if (!s->has_filter || s->expect.full || s->got.full)
        return;
    if (s->routing_said || s->no_endpoint || s->io_error)
        return; /* noted there, or nothing to compare */
    if (!s->ended || s->main_incomplete) {
        cx_note(s, "the filtered subscription was not compared: the main subscription %s",
                !s->ended ? "did not see the run's end" : "lost events on a resume");
        return;
    }
    for (i = 0; i < k; i++)
        if (s->expect.v[i] != s->got.v[i]) {
            cx_error(s, 0, "filter-subset", NULL, NULL,
                     "filtered subscription, its event %zu: seq %" PRIu64 ", but the main subscription's event %zu "
                     "that matches the filter is seq %" PRIu64,
                     i + 1, s->got.v[i], i + 1, s->expect.v[i]);
            return;
        }
    if (s->got.n > s->expect.n)
        cx_error(s, 0, "filter-subset", NULL, NULL,
                 "filtered subscription: %zu events, but only %zu of the main subscription's match its filter "
                 "(the first extra is seq %" PRIu64 ")",
                 s->got.n, s->expect.n, s->got.v[k]);
    else if (s->got.n < s->expect.n)
        cx_error(s, 0, "filter-subset", NULL, NULL,
                 "filtered subscription: %zu events, but %zu of the main subscription's match its filter "
                 "(the first missing is seq %" PRIu64 ")",
                 s->got.n, s->expect.n, s->expect.v[k]);
}

/*
 * Over WebSocket, the main subscription did not see the run end while the
 * filtered one's socket got events its filter excludes: the server sends a
 * thread's events to one socket (the last opened) instead of each
 * subscription's own. One finding for the cause (and one for the repeats
 * that come of sending an event once per matching subscription); what
 * depends on the main subscription is not checked.
 */
static void diagnose_routing(cx_session *s)
{
    if (!s->websocket || s->ended || s->misrouted == 0 || s->routing_said)
        return;
    s->routing_said = 1;
    cx_error(s, 0, "ws-routing", "subscription.subscribe", NULL,
             "the main subscription's events went to the filtered subscription's WebSocket (%" PRIu64
             " events its filter excludes, the first seq %" PRIu64 "): each socket must get its own "
             "subscriptions' events",
             s->misrouted, s->misrouted_first);
    if (s->filter_repeats > 0)
        cx_error(s, 0, "ws-duplicate", "subscription.subscribe", NULL,
                 "one WebSocket got events again (%" PRIu64 " repeats, the first seq %" PRIu64
                 "): an event that several subscriptions match goes out once per socket",
                 s->filter_repeats, s->filter_repeat_seq);
    cx_note(s, "the main subscription's events were not checked: the server sent them to another socket "
               "(--filter none checks them on one socket)");
}

uint64_t cx_session_finish(cx_session *s, int deliver)
{
    size_t i;
    uint64_t found;
    diagnose_routing(s);
    /* without the protocol's routes no answer is the protocol's: said once, as no-endpoint */
    for (i = 0; i < s->npending && !s->no_endpoint; i++)
        cx_error(s, 0, "response-missing", s->pending[i].method, "/id", "command %" PRIu64 " (%s) got no response",
                 s->pending[i].id, s->pending[i].method);
    s->npending = 0;
    compare_filtered(s);
    found = apstream_check_free(s->check, deliver);
    s->check = NULL;
    return found;
}

void cx_session_deinit(cx_session *s)
{
    apstream_check_free(s->check, 0);
    if (s->has_filter)
        aps_filter_deinit(&s->filter);
    if (s->has_main_filter)
        aps_filter_deinit(&s->main_filter);
    free(s->expect.v);
    free(s->got.v);
    aps_arena_deinit(&s->arena);
}

/* ---- commands ------------------------------------------------------------------ */

int cx_command_id(const char *text, size_t len, uint64_t *id, char *method, size_t method_cap)
{
    ap_command_t cmd;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_arena arena;
    aps_status st;
    memset(&dopt, 0, sizeof dopt);
    aps_arena_init(&arena, NULL);
    st = aps_schema_decode(&ap_command_type, text, len, &arena, &cmd, &dopt, &err);
    if (st == APS_OK) {
        /* the method as sent, for messages: the name of the command's kind */
        const char *m = cmd.command_data.kind == AP_COMMAND_DATA_RUN_START ? "run.start" : "the --start command";
        snprintf(method, method_cap, "%s", m);
        *id = cmd.id;
    } else {
        fprintf(stderr, "apstream: error: the --start file is no Command: %s: %s\n",
                err.pointer[0] ? err.pointer : "(root)", err.code != APS_OK ? err.message : aps_status_str(st));
    }
    aps_arena_deinit(&arena);
    return st == APS_OK ? 0 : -1;
}

int cx_pending_add(cx_session *s, uint64_t id, const char *method, cx_stream *on, int reconnect)
{
    cx_pending *p;
    if (s->npending == CX_MAX_PENDING)
        return -1;
    p = &s->pending[s->npending++];
    memset(p, 0, sizeof *p);
    p->id = id;
    snprintf(p->method, sizeof p->method, "%s", method);
    p->on = on;
    p->reconnect = reconnect;
    return 0;
}

void cx_pending_abandon(cx_session *s, const cx_stream *on)
{
    size_t i = 0;
    while (i < s->npending)
        if (s->pending[i].on == on && on != NULL)
            s->pending[i] = s->pending[--s->npending];
        else
            i++;
}

void cx_pending_probe(cx_session *s, uint64_t id, int no_id)
{
    size_t i;
    for (i = 0; i < s->npending; i++)
        if (s->pending[i].id == id) {
            s->pending[i].probe = 1;
            s->pending[i].no_id = no_id;
        }
}

/* Takes the command sent without an id off the list (at most one is in flight). 0, or -1: none. */
static int pending_take_no_id(cx_session *s, int64_t expect, cx_pending *out)
{
    size_t i;
    for (i = 0; i < s->npending; i++)
        if (s->pending[i].no_id && (expect < 0 || s->pending[i].id == (uint64_t)expect)) {
            *out = s->pending[i];
            s->pending[i] = s->pending[--s->npending];
            return 0;
        }
    return -1;
}

/* The result type of a probed command's success (NULL: any object, an EmptyResult). */
static const aps_type *result_type(const char *method)
{
    if (strcmp(method, "state.get") == 0)
        return &ap_state_get_result_type;
    if (strcmp(method, "state.listCheckpoints") == 0)
        return &ap_list_checkpoints_result_type;
    if (strcmp(method, "state.fork") == 0)
        return &ap_state_fork_result_type;
    if (strcmp(method, "agent.getTree") == 0)
        return &ap_agent_result_type;
    return NULL;
}

/*
 * The commands probe's verdict on an answer already matched to command
 * `p`: a success must carry the method's result; an ErrorResponse is an
 * answer (a server may lack an optional command: not_supported), except
 * unknown_command, which says the server does not know a method the
 * protocol defines. 0, or -1 after reporting.
 */
static int probe_answer(cx_session *s, const char *text, size_t len, const ap_message_t *msg, const cx_pending *p)
{
    s->probe_answered++;
    if (msg->kind == AP_MESSAGE_ERROR_RESPONSE) {
        const ap_error_response_t *e = &msg->u.error_response;
        s->probe_refused++;
        if (e->error != AP_ERROR_CODE_UNKNOWN_COMMAND)
            return 0;
        cx_error(s, 0, "unknown-command", p->method, "/error",
                 "%s was answered unknown_command (\"%.*s\"): the protocol defines it; a server without it answers "
                 "not_supported",
                 p->method, (int)(e->message.len > 120 ? 120 : e->message.len), e->message.ptr);
        return -1;
    } else {
        const aps_type *type = result_type(p->method);
        aps_json_raw obj = { text, len }, result;
        aps_decode_options dopt;
        aps_error err = APS_ERROR_INIT;
        void *value;
        if (type == NULL)
            return 0;
        memset(&dopt, 0, sizeof dopt);
        dopt.strict = 1;
        dopt.key_case = s->o->key_case;
        if (aps_json_raw_member(obj, "result", 6, &s->arena, &result, NULL) == APS_OK &&
            (value = aps_arena_alloc(&s->arena, type->size)) != NULL &&
            aps_schema_decode(type, result.ptr, result.len, &s->arena, value, &dopt, &err) == APS_OK)
            return 0;
        {
            char pointer[APS_ERROR_POINTER_MAX + 8];
            snprintf(pointer, sizeof pointer, "/result%s", err.pointer);
            cx_error(s, 0, "response-shape", p->method, pointer, "the result of %s is no %s: %s", p->method,
                     type->name != NULL ? type->name : "result",
                     err.code != APS_OK ? err.message : "out of memory");
        }
        return -1;
    }
}

void cx_pending_method(const cx_session *s, uint64_t id, char *buf, size_t cap)
{
    size_t i;
    buf[0] = '\0';
    for (i = 0; i < s->npending; i++)
        if (s->pending[i].id == id) {
            snprintf(buf, cap, "%s", s->pending[i].method);
            return;
        }
}

void cx_pending_forget(cx_session *s, uint64_t id)
{
    size_t i;
    for (i = 0; i < s->npending; i++)
        if (s->pending[i].id == id && s->pending[i].on == NULL) {
            s->pending[i] = s->pending[--s->npending];
            return;
        }
}

/* Takes the pending command `id` off the list into *out. 0, or -1 when none has that id. */
static int pending_take(cx_session *s, uint64_t id, cx_pending *out)
{
    size_t i;
    for (i = 0; i < s->npending; i++)
        if (s->pending[i].id == id) {
            *out = s->pending[i];
            s->pending[i] = s->pending[--s->npending];
            return 0;
        }
    return -1;
}

/* A reconnect result's missedEvents, whichever alternative of the untagged result the decoder chose. */
static uint64_t missed_events(const ap_command_response_t *r)
{
    const ap_reconnect_result_t *rr;
    if (r->result.kind == AP_RESULT_DATA_SUBSCRIPTION_RESULT &&
        r->result.u.subscription_result.kind == AP_SUBSCRIPTION_RESULT_RECONNECT_RESULT) {
        rr = &r->result.u.subscription_result.u.reconnect_result;
        return rr->has_missed_events ? rr->missed_events : 0;
    }
    return 0;
}

/* How a response's command is named in messages: "the run.start command", "a command without an id". */
static const char *command_name(const char *method, int posted, char *buf, size_t cap)
{
    if (method == NULL)
        return posted ? "a command" : "a WebSocket command";
    if (strcmp(method, "command-without-id") == 0)
        return "a command without an id";
    snprintf(buf, cap, "the %s command", method);
    return buf;
}

int cx_response(cx_session *s, const char *text, size_t len, int64_t expect, cx_pending *which, uint64_t *missed)
{
    ap_message_t msg;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    cx_pending p;
    uint64_t id;
    memset(which, 0, sizeof *which);
    if (missed != NULL)
        *missed = 0;
    memset(&dopt, 0, sizeof dopt);
    dopt.strict = 1;
    dopt.key_case = s->o->key_case;
    aps_arena_reset(&s->arena);
    st = aps_schema_decode(&ap_message_type, text, len, &s->arena, &msg, &dopt, &err);
    if (st == APS_OK)
        st = aps_schema_validate(&ap_message_type, &msg, 1, &err);
    if (st == APS_OK && msg.kind == AP_MESSAGE_EVENT) {
        aps_error_set(&err, APS_E_TYPE, 0, "an event where a CommandResponse or ErrorResponse was due");
        st = APS_E_TYPE;
    }
    if (st != APS_OK) {
        const char *method = NULL;
        char name[64];
        if (expect >= 0 && pending_take(s, (uint64_t)expect, which) == 0)
            method = which->method;
        cx_error(s, 0, "response-shape", method, err.pointer, "the response to %s: %s",
                 command_name(method, expect >= 0, name, sizeof name),
                 err.code != APS_OK ? err.message : aps_status_str(st));
        return -1;
    }
    if (msg.kind == AP_MESSAGE_ERROR_RESPONSE && msg.u.error_response.id_is_null &&
        pending_take_no_id(s, expect, which) == 0) {
        s->probe_answered++;
        return 0; /* the answer the protocol asks for a command without an id */
    }
    if (msg.kind == AP_MESSAGE_ERROR_RESPONSE && msg.u.error_response.id_is_null) {
        const char *method = NULL;
        if (expect >= 0 && pending_take(s, (uint64_t)expect, which) == 0)
            method = which->method;
        cx_error(s, 0, "response-id", method, "/id",
                 "an ErrorResponse with a null id (\"%.*s\") to a command that had one",
                 (int)(msg.u.error_response.message.len > 120 ? 120 : msg.u.error_response.message.len),
                 msg.u.error_response.message.ptr);
        return -1;
    }
    id = msg.kind == AP_MESSAGE_COMMAND_RESPONSE ? msg.u.command_response.id : msg.u.error_response.id;
    if (expect >= 0 && id != (uint64_t)expect) {
        (void)pending_take(s, (uint64_t)expect, &p);
        cx_error(s, 0, "response-id", p.method, "/id", "the response to command %" PRId64 " (%s) has id %" PRIu64,
                 expect, p.method, id);
        *which = p;
        return -1;
    }
    if (pending_take(s, id, &p) != 0) {
        cx_error(s, 0, "response-id", NULL, "/id", "a response with id %" PRIu64 " answers no command in flight", id);
        return -1;
    }
    *which = p;
    if (p.probe)
        return probe_answer(s, text, len, &msg, &p);
    if (msg.kind == AP_MESSAGE_ERROR_RESPONSE) {
        if (s->has_start && id == s->start_id)
            s->start_refused = 1;
        cx_error(s, 0, "refused-command", p.method, "/error", "command %" PRIu64 " (%s) was refused: %s: %.*s", id,
                 p.method, ap_error_code_name(msg.u.error_response.error),
                 (int)(msg.u.error_response.message.len > 200 ? 200 : msg.u.error_response.message.len),
                 msg.u.error_response.message.ptr);
        return -1;
    }
    if (missed != NULL)
        *missed = missed_events(&msg.u.command_response);
    return 0;
}

/* ---- events -------------------------------------------------------------------- */

/* What connect needs of an event beyond the checker's verdict. */
typedef struct cx_facts {
    int has_seq;
    uint64_t seq;
    aps_slice id;        /* the eventId, else the SSE id kept; ptr NULL: none */
    aps_slice run_id;    /* ptr NULL: none */
    int routed;          /* meta below is known */
    aps_replay_meta meta;
} cx_facts;

/* A member of the event's envelope, in either spelling, whatever the schema says of the rest. */
static int envelope_member(cx_session *s, const aps_record *rec, const char *camel, const char *snake,
                           aps_json_reader *r)
{
    aps_json_raw obj = { rec->text, rec->len }, v;
    if (aps_json_raw_member(obj, camel, strlen(camel), &s->arena, &v, NULL) != APS_OK &&
        (snake == NULL || aps_json_raw_member(obj, snake, strlen(snake), &s->arena, &v, NULL) != APS_OK))
        return 0;
    aps_json_reader_init(r, v.ptr, v.len, &s->arena, NULL);
    return 1;
}

/*
 * seq, eventId and runId are read from the envelope itself, not from the
 * decoded event: an event the schema rejects (reported by the checker) has
 * its place in the stream all the same, and a resume must start after it.
 */
static void facts_of(cx_session *s, const aps_record *rec, cx_facts *f)
{
    ap_message_t msg;
    aps_decode_options dopt;
    aps_json_reader r;
    const ap_event_t *ev = NULL;
    memset(f, 0, sizeof *f);
    memset(&dopt, 0, sizeof dopt);
    dopt.key_case = s->o->key_case;
    aps_arena_reset(&s->arena);
    if (aps_schema_decode(&ap_message_type, rec->text, rec->len, &s->arena, &msg, &dopt, NULL) == APS_OK &&
        msg.kind == AP_MESSAGE_EVENT)
        ev = &msg.u.event;
    if (envelope_member(s, rec, "seq", NULL, &r) && aps_json_read_uint64(&r, &f->seq, NULL) == APS_OK)
        f->has_seq = 1;
    if (!envelope_member(s, rec, "eventId", "event_id", &r) || aps_json_read_string(&r, &f->id, NULL) != APS_OK)
        f->id.ptr = NULL;
    if (!envelope_member(s, rec, "runId", "run_id", &r) || aps_json_read_string(&r, &f->run_id, NULL) != APS_OK)
        f->run_id.ptr = NULL;
    if (f->id.ptr == NULL && rec->from_sse && rec->sse_id_len > 0) {
        f->id.ptr = rec->sse_id;
        f->id.len = rec->sse_id_len;
    }
    f->routed = ap_event_replay_meta_text(rec->text, rec->len, ev, &s->arena, &f->meta, NULL) == APS_OK;
}

static int root_end(const cx_facts *f)
{
    return f->routed && f->meta.run == APS_RUN_END && f->meta.ns.count == 0;
}

/* Keeps an id to resume by; none when too long, or holding a control byte (it goes into a header). */
static void copy_id(char *dst, size_t *dst_len, aps_slice id)
{
    size_t i;
    *dst_len = 0;
    if (id.ptr == NULL || id.len >= CX_MAX_ID)
        return;
    for (i = 0; i < id.len; i++)
        if ((unsigned char)id.ptr[i] < 0x20 || id.ptr[i] == 0x7f)
            return;
    memcpy(dst, id.ptr, id.len);
    *dst_len = id.len;
}

/*
 * The first event after a resume, or after a miss the server announced:
 * it continues right after the last event the client had, or the miss
 * says what was lost. Anything else is a gap or a repeat the client was
 * not told of. A repeat is one finding however many events it repeats:
 * the server answered from too early, and the client drops what it had
 * (st->skip_through), as a client that de-duplicates does. The method of
 * these findings is the way of resuming (cx_resume_key).
 */
static void check_continuation(cx_stream *st, uint64_t line, const cx_facts *f)
{
    cx_session *s = st->s;
    const char *who = st->role == CX_PROBE ? "the probe from before the window" : "resumed";
    const char *how = cx_resume_key(st->how);
    if (!f->has_seq || !st->has_after)
        return;
    /* a new subscription replays what it has: up to where the client was, dropped without a word */
    if (st->how == CX_RESUME_SUBSCRIBE && f->seq <= st->after_seq)
        return;
    if (st->miss && st->miss_oldest != 0 && f->seq < st->miss_oldest) {
        cx_error(s, line, "resume-miss", how, "/seq",
                 "%s by %s after seq %" PRIu64 ": seq %" PRIu64
                 " is older than the oldest seq %" PRIu64 " the server's miss announced",
                 who, cx_resume_name(st->how), st->after_seq, f->seq, st->miss_oldest);
    } else if (f->seq <= st->after_seq) {
        /* said once for the way: it would replay again, so the other ways are preferred from now on */
        if (!s->replays[st->how])
            cx_error(s, line, "resume-replayed", how, "/seq",
                     "%s by %s after seq %" PRIu64 ": the server replayed from seq %" PRIu64
                     " instead of after seq %" PRIu64 " (events already received are dropped)",
                     who, cx_resume_name(st->how), st->after_seq, f->seq, st->after_seq);
        s->replays[st->how] = 1;
        st->skip_through = st->after_seq;
    } else if (st->miss) {
        if (st->role == CX_MAIN)
            cx_note(s, "%s by %s after seq %" PRIu64 ": the server announced a miss of %" PRIu64
                    " events; continuing at seq %" PRIu64,
                    who, cx_resume_name(st->how), st->after_seq, st->miss_lost, f->seq);
    } else if (s->unfiltered && f->seq != st->after_seq + 1) {
        cx_error(s, line, "resume-gap", how, "/seq",
                 "%s by %s after seq %" PRIu64 ": seq %" PRIu64 " follows, %" PRIu64
                 " events lost without the miss the protocol defines",
                 who, cx_resume_name(st->how), st->after_seq, f->seq, f->seq - st->after_seq - 1);
        if (st->role == CX_MAIN)
            s->main_incomplete = 1;
    }
    if (st->miss && st->role == CX_MAIN)
        apstream_check_forget_seq(s->check);
    st->miss = 0;
    st->has_after = 0;
}

/* An event a resume repeated (after check_continuation said so once): dropped, as a de-duplicating client does. */
static int replayed(cx_stream *st, const cx_facts *f)
{
    if (st->skip_through == 0 || !f->has_seq || f->seq > st->skip_through)
        return 0;
    st->replayed++;
    return 1;
}

static int main_event(cx_stream *st, const aps_record *rec, const cx_facts *f)
{
    cx_session *s = st->s;
    aps_record numbered = *rec;
    uint64_t n;
    if (st->miss && !st->has_after && s->have_last) {
        /* a miss in the middle of a connection (the subscriber fell behind) */
        st->has_after = 1;
        st->after_seq = s->last_seq;
    }
    check_continuation(st, s->events + 1, f);
    if (replayed(st, f))
        return 0;
    n = ++s->events;
    numbered.line = n;
    if (s->on_event != NULL)
        s->on_event(s->on_event_user, &numbered);
    if (apstream_check_record(s->check, &numbered) != 0)
        return -1;
    if (s->has_filter && f->routed &&
        aps_filter_match_namespace(&s->filter, f->meta.channel, f->meta.custom_name, f->meta.ns))
        seqs_push(s, &s->expect, f->seq);
    if (f->has_seq) {
        if (!s->have_first) {
            s->have_first = 1;
            s->first_seq = f->seq;
            copy_id(s->first_id, &s->first_id_len, f->id);
        }
        s->have_last = 1;
        s->last_seq = f->seq;
    }
    copy_id(s->last_id, &s->last_id_len, f->id);
    if (f->run_id.ptr != NULL)
        copy_id(s->run_id, &s->run_id_len, f->run_id);
    if (root_end(f)) {
        s->ended = st->ended = st->stop = 1;
        return 1;
    }
    /* N events of progress: a replay of what the client had does not count, or a resume whose
       replay is longer than N would never get further */
    if (st->drop_at != 0 && ++st->fresh >= st->drop_at) {
        st->stop = st->dropped = 1;
        return 1;
    }
    return 0;
}

static int filter_event(cx_stream *st, const cx_facts *f)
{
    cx_session *s = st->s;
    if (f->routed && !aps_filter_match_namespace(&s->filter, f->meta.channel, f->meta.custom_name, f->meta.ns) &&
        s->misrouted++ == 0)
        s->misrouted_first = f->seq;
    if (f->has_seq && st->has_prev && f->seq <= st->prev_seq && s->filter_repeats++ == 0)
        s->filter_repeat_seq = f->seq;
    if (f->has_seq) {
        st->has_prev = 1;
        st->prev_seq = f->seq;
    }
    /* an event the main subscription does not take is not compared: nothing says what it should be */
    if (!s->has_main_filter || !f->routed ||
        aps_filter_match_namespace(&s->main_filter, f->meta.channel, f->meta.custom_name, f->meta.ns))
        seqs_push(s, &s->got, f->seq);
    if (root_end(f)) {
        st->ended = st->stop = 1;
        return 1;
    }
    return 0;
}

static int probe_event(cx_stream *st, const cx_facts *f)
{
    cx_session *s = st->s;
    if (st->has_after || st->miss) {
        check_continuation(st, 0, f);
    } else if (f->has_seq && st->has_prev) {
        if (f->seq <= st->prev_seq)
            cx_error(s, 0, "seq-order", cx_resume_key(st->how), "/seq",
                     "the probe's replay: seq %" PRIu64 " after seq %" PRIu64, f->seq, st->prev_seq);
        else if (s->unfiltered && f->seq != st->prev_seq + 1)
            cx_error(s, 0, "resume-gap", cx_resume_key(st->how), "/seq",
                     "the probe's replay: seq %" PRIu64 " follows seq %" PRIu64 " with no miss announced", f->seq,
                     st->prev_seq);
    }
    if (f->has_seq) {
        st->has_prev = 1;
        st->prev_seq = f->seq;
    }
    /* the replay has reached what the main subscription saw last: nothing more to learn */
    if (root_end(f) || (f->has_seq && s->have_last && f->seq >= s->last_seq)) {
        st->ended = st->stop = 1;
        return 1;
    }
    return 0;
}

/* One event (or whatever the server sent as one) on `st`. 0 go on, 1 stop, -1 out of memory. */
static int on_event(cx_stream *st, const aps_record *rec)
{
    cx_facts f;
    if (st->stop)
        return 1;
    if (st->waiting_reconnect) {
        st->ignored++;
        return 0;
    }
    st->count++;
    facts_of(st->s, rec, &f);
    switch (st->role) {
    case CX_MAIN:
        return main_event(st, rec, &f);
    case CX_FILTER:
        return filter_event(st, &f);
    case CX_COMMANDS:
        return 0; /* a socket for commands: what else the server sends there is not judged */
    default:
        return probe_event(st, &f);
    }
}

/* ---- SSE ----------------------------------------------------------------------- */

static int sse_record(void *user, const aps_record *rec)
{
    int rc = on_event(user, rec);
    return rc == 0 ? 0 : rc > 0 ? 1 : 2;
}

static const char *role_name(cx_role role)
{
    return role == CX_MAIN ? "the subscription" : role == CX_FILTER ? "the filtered subscription" : "the probe";
}

/*
 * A framing error or the gate's finding ends the connection's reading: the
 * reader may still be inside the bytes of one push, so what it reports
 * after the first is dropped here, and the verdicts do not depend on how
 * the bytes were chunked.
 */
static void sse_stop(cx_stream *st, uint64_t line, const char *why)
{
    if (st->stop)
        return;
    cx_error(st->s, st->role == CX_MAIN ? st->s->events + 1 : 0, "framing", NULL, NULL, "%s's SSE, its line %" PRIu64 ": %s",
             role_name(st->role), line, why);
    st->stop = 1;
}

static void sse_framing_error(void *user, uint64_t line, const aps_error *err)
{
    sse_stop(user, line, err->message);
}

static void sse_gate(void *user, const aps_records_gate *gate)
{
    sse_stop(user, gate->line, gate->reason);
}

/* The server said `lost` events are gone (`oldest`: the oldest seq it still has, 0 unknown): the next
 * event is checked against it. */
static void note_miss(cx_stream *st, uint64_t lost, uint64_t oldest)
{
    st->miss = 1;
    st->miss_lost = lost;
    st->miss_oldest = oldest;
    st->missed += lost;
}

/* A comment line of the SSE body: the server's miss (`: missed N events; oldest seq S`), or a
 * heartbeat (ignored). */
static int sse_comment(void *user, uint64_t line, const char *text, size_t len)
{
    cx_stream *st = user;
    char copy[APS_SSE_NAME_MAX + 1];
    uint64_t lost, oldest;
    (void)line;
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (sscanf(copy, " missed %" SCNu64 " events; oldest seq %" SCNu64, &lost, &oldest) == 2)
        note_miss(st, lost, oldest);
    else
        st->heartbeats++;
    return 0;
}

int cx_stream_init(cx_stream *st, cx_session *s, cx_role role, int sse)
{
    aps_records_config cfg;
    memset(st, 0, sizeof *st);
    st->s = s;
    st->role = role;
    if (!sse)
        return 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.format = APS_FORMAT_SSE;
    cfg.max_record = s->o->max_record;
    cfg.strict = 1;
    cfg.on_record = sse_record;
    cfg.on_error = sse_framing_error;
    cfg.on_gate = sse_gate;
    cfg.on_comment = sse_comment; /* a miss is known before the event after it */
    cfg.user = st;
    return (st->reader = aps_records_reader_new(&cfg)) != NULL ? 0 : -1;
}

void cx_stream_deinit(cx_stream *st)
{
    aps_records_reader_free(st->reader);
    st->reader = NULL;
}

int cx_sse_push(cx_stream *st, const char *bytes, size_t len)
{
    int rc;
    if (st->stop)
        return 1;
    rc = len > 0 ? aps_records_push(st->reader, bytes, len) : 0;
    if (rc == APS_RECORDS_NOMEM || rc == 2)
        return -1;
    if (rc == APS_RECORDS_REJECTED)
        st->stop = 1;
    return st->stop ? 1 : 0;
}

void cx_sse_end(cx_stream *st)
{
    cx_session *s = st->s;
    int rc = 0;
    st->closed = 1;
    if (st->stop)
        return;
    rc = aps_records_finish(st->reader);
    (void)rc; /* a cut event was reported through sse_gate */
    if (st->stop)
        return;
    if (st->role == CX_MAIN)
        cx_error(s, s->events, "stream-end", NULL, NULL, "the server ended the subscription after %" PRIu64
                 " events, before the run's root lifecycle ended", s->events);
    else
        cx_error(s, 0, "stream-end", NULL, NULL, "the server ended %s before the run's end", role_name(st->role));
    st->stop = 1;
}

/* ---- WebSocket ------------------------------------------------------------------- */

/* Whether a WebSocket message is a command response (else an event, or what the server sent as one). */
static int is_response(cx_session *s, const char *text, size_t len)
{
    ap_message_t msg;
    aps_decode_options dopt;
    memset(&dopt, 0, sizeof dopt);
    dopt.key_case = s->o->key_case;
    aps_arena_reset(&s->arena);
    /* tolerant: an event of a kind the schema lacks is still an event, reported by the checker */
    if (aps_schema_decode(&ap_message_type, text, len, &s->arena, &msg, &dopt, NULL) != APS_OK)
        return 0;
    return msg.kind == AP_MESSAGE_COMMAND_RESPONSE || msg.kind == AP_MESSAGE_ERROR_RESPONSE;
}

int cx_ws_message(cx_stream *st, const char *text, size_t len)
{
    aps_record rec;
    if (st->stop)
        return 1;
    if (is_response(st->s, text, len)) {
        cx_pending which;
        uint64_t missed = 0;
        int rc = cx_response(st->s, text, len, -1, &which, &missed);
        if (which.reconnect && which.on == st) {
            st->waiting_reconnect = 0;
            if (rc == 0 && missed > 0)
                note_miss(st, missed, 0); /* the reconnect result says how many, not from where */
            if (rc != 0) {
                /* said once (refused-command); resumes go on by a new subscription, de-duplicated */
                st->s->refused[CX_RESUME_RECONNECT] = 1;
                st->stop = 1;
                st->dropped = st->role == CX_MAIN;
                return 1;
            }
        }
        return 0;
    }
    memset(&rec, 0, sizeof rec);
    rec.text = text;
    rec.len = len;
    return on_event(st, &rec);
}
