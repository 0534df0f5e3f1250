/*
 * connect.c - `apstream connect`: a live server's conformance, checked as
 * a CI gate (docs/apstream.md).
 *
 *   apstream connect URL --thread ID [--transport sse|websocket] [--start RUN.json]
 *                    [--channels LIST] [--filter REQUEST.json|none] [--resume-after N]
 *                    [--commands] [--strict] [--timeout S] [--stall S] [--max-event BYTES]
 *                    [--case C] [--output text|json] [--max-errors N]
 *                    [--baseline FILE] [--write-baseline FILE] [--report FILE.html]
 *
 * In order: the subscription (every channel unless --channels) and the
 * filtered one are opened, the --start command sent, and events read until
 * the run's root lifecycle ends; with --resume-after N the subscription is
 * dropped after every N events and resumed (SSE: `since`, Last-Event-ID,
 * `sinceEventId` in turn; WebSocket: subscription.reconnect), and after the
 * run a probe resumes from before the server's window. Then the filtered
 * subscription is compared with the main one, and every command must have
 * had its answer. The transports (connect_sse.c, connect_ws.c) move bytes;
 * the reading path (connect_read.c) judges them. Each finding has a rule id
 * and is said once for its cause; a check that depends on one that failed
 * is skipped with a note; a baseline accepts known deviations.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "connect.h"

/* The whole protocol's channels: a subscription to all of them misses no seq. */
static const char all_channels[] =
    "{\"channels\":[\"values\",\"updates\",\"messages\",\"tools\",\"lifecycle\",\"input\",\"checkpoints\",\"tasks\","
    "\"custom\"]}";
/* The filtered subscription's default: a channel, a namespace and a depth filter at once. */
static const char default_filter[] =
    "{\"channels\":[\"lifecycle\",\"messages\",\"tools\",\"values\"],\"namespaces\":[[]],\"depth\":1}";

typedef struct connect_args {
    apstream_options o;
    const char *url, *thread, *start, *channels, *filter;
    const char *report;       /* --report FILE: the page of the run (report_page.c) */
    const char *filter_json;  /* the filtered subscription's request: --filter's file, or the default */
    char *start_text;         /* --start's command, read and checked before anything is connected */
    size_t start_len;
    uint64_t start_id;
    char start_method[40];
    int websocket;
    int no_filter;            /* --filter none: the main subscription alone */
    int commands;             /* --commands: the commands probe after the run */
    uint64_t resume_after, timeout_s, stall_s;
} connect_args;

static const char connect_usage_text[] =
    "usage: apstream connect URL --thread ID [--transport sse|websocket] [--start RUN.json]\n"
    "                        [--channels LIST] [--filter REQUEST.json|none] [--resume-after N]\n"
    "                        [--commands] [--strict] [--timeout S] [--stall S] [--max-event BYTES]\n"
    "                        [--case C] [--output text|json] [--max-errors N]\n"
    "                        [--baseline FILE] [--write-baseline FILE] [--report FILE.html]\n"
    "\n"
    "Checks a live server: every event as `validate --strict` checks a capture, numbered\n"
    "by event; every command's response; resumes and a filtered subscription.\n"
    "\n"
    "  URL                  http://HOST:PORT[/PREFIX] (the threads are under it)\n"
    "  --thread ID          the thread (a fresh one: the check starts at its first run)\n"
    "  --transport T        sse (default: POST .../stream/events, or .../stream) or websocket\n"
    "  --start FILE         a Command (run.start) to send once subscribed\n"
    "  --channels LIST      comma-separated channels of the subscription (default: all, so\n"
    "                       a gap in seq is a loss)\n"
    "  --filter FILE        the second subscription's EventStreamRequest (default: lifecycle,\n"
    "                       messages, tools, values; namespaces [[]]; depth 1); none: no\n"
    "                       second subscription (one WebSocket)\n"
    "  --resume-after N     drop the subscription after every N events and resume it, then\n"
    "                       probe a resume from before the server's window\n"
    "  --commands           after the run, send each command the protocol defines (harmless\n"
    "                       params) and one without an id, and check their answers\n"
    "  --timeout S          the whole check (default 60)\n"
    "  --stall S            a connection silent this long fails (default: never; a\n"
    "                       heartbeat the server showed and then missed always fails)\n"
    "  --max-event BYTES    the largest event or response accepted (default 16777216)\n"
    "  --baseline FILE      accepted findings (JSON Lines): only new ones fail; those\n"
    "                       that no longer occur are listed\n"
    "  --write-baseline FILE  this run's findings, as a baseline to edit and accept\n"
    "  --report FILE        write the page of the main subscription's events, as\n"
    "                       `apstream report` writes it of a capture, with every finding\n"
    "  --strict             accepted for validate's sake: connect is always strict\n"
    "\n"
    "Each finding ends with its rule id in brackets (docs/apstream.md lists them).\n"
    "Exit status: 0 conformant, 1 something is not (a server without the protocol's\n"
    "routes too), 2 usage error or nothing listening.\n";

static int connect_usage(const char *why)
{
    if (why != NULL)
        fprintf(stderr, "apstream: error: %s\n", why);
    fputs(connect_usage_text, stderr);
    return 2;
}

int64_t cx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A thread id goes into URL paths: unreserved characters only, so both transports spell it alike. */
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

static int parse_args(int argc, char **argv, connect_args *a)
{
    int i;
    uint64_t max_event = 16u << 20;
    memset(a, 0, sizeof *a);
    a->o.command = "connect";
    a->o.type_name = "Message";
    a->o.max_errors = 100;
    a->timeout_s = 60;
    a->stall_s = 0; /* silence is no finding unless asked for */
    for (i = 2; i < argc; i++) {
        const char *n = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t *count = NULL;
        if (strcmp(n, "--help") == 0 || strcmp(n, "-h") == 0) {
            fputs(connect_usage_text, stdout);
            return 1;
        }
        if (strcmp(n, "--strict") == 0)
            continue;
        if (strcmp(n, "--commands") == 0) {
            a->commands = 1;
            continue;
        }
        if (n[0] != '-') {
            if (a->url != NULL)
                return connect_usage("only one URL");
            a->url = n;
            continue;
        }
        if (v == NULL)
            return connect_usage("an option without its value");
        i++;
        if (strcmp(n, "--thread") == 0)
            a->thread = v;
        else if (strcmp(n, "--transport") == 0 && (strcmp(v, "sse") == 0 || strcmp(v, "websocket") == 0))
            a->websocket = v[0] == 'w';
        else if (strcmp(n, "--start") == 0)
            a->start = v;
        else if (strcmp(n, "--channels") == 0)
            a->channels = v;
        else if (strcmp(n, "--filter") == 0 && strcmp(v, "none") == 0)
            a->no_filter = 1;
        else if (strcmp(n, "--filter") == 0)
            a->filter = v;
        else if (strcmp(n, "--baseline") == 0)
            a->o.baseline = v;
        else if (strcmp(n, "--write-baseline") == 0)
            a->o.write_baseline = v;
        else if (strcmp(n, "--report") == 0)
            a->report = v;
        else if (strcmp(n, "--output") == 0 && (strcmp(v, "text") == 0 || strcmp(v, "json") == 0))
            a->o.json_report = v[0] == 'j';
        else if (strcmp(n, "--case") == 0 && strcmp(v, "either") == 0)
            a->o.key_case = APS_CASE_EITHER;
        else if (strcmp(n, "--case") == 0 && strcmp(v, "schema") == 0)
            a->o.key_case = APS_CASE_SCHEMA;
        else if (strcmp(n, "--case") == 0 && strcmp(v, "snake") == 0)
            a->o.key_case = APS_CASE_SNAKE;
        else if (strcmp(n, "--resume-after") == 0)
            count = &a->resume_after;
        else if (strcmp(n, "--timeout") == 0)
            count = &a->timeout_s;
        else if (strcmp(n, "--stall") == 0)
            count = &a->stall_s;
        else if (strcmp(n, "--max-event") == 0)
            count = &max_event;
        else if (strcmp(n, "--max-errors") == 0)
            count = &a->o.max_errors;
        else
            return connect_usage("unknown option, or a value it does not take");
        if (count != NULL && apstream_parse_count(v, count) != 0)
            return connect_usage("a count takes whole decimal digits");
    }
    if (a->url == NULL || strncmp(a->url, "http://", 7) != 0)
        return connect_usage("connect needs the server's URL, http://HOST:PORT");
    if (a->thread == NULL || !thread_ok(a->thread))
        return connect_usage("--thread takes an id of letters, digits and - . _ ~ :");
    if (a->timeout_s == 0 || a->timeout_s > 86400 || a->stall_s > 86400 || max_event < 64 ||
        max_event > ((uint64_t)1 << 30))
        return connect_usage("--timeout takes 1 to 86400 seconds, --stall 0 (never) to 86400, --max-event 64 bytes "
                             "to 1 GiB");
    a->o.max_record = (size_t)max_event;
    a->o.strict = 1;
    a->o.unfiltered = a->channels == NULL;
    a->o.file = a->url; /* the "file" of --output json */
    return 0;
}

char *cx_json_take(aps_json_writer *w)
{
    char *out = NULL;
    if (aps_json_writer_status(w) == APS_OK && (out = malloc(aps_json_writer_len(w) + 1)) != NULL) {
        memcpy(out, aps_json_writer_data(w), aps_json_writer_len(w));
        out[aps_json_writer_len(w)] = '\0';
    }
    aps_json_writer_deinit(w);
    return out;
}

/* The main subscription's request: every channel, or --channels as a JSON array. */
static char *main_request(const char *channels)
{
    aps_json_writer w;
    const char *p = channels;
    if (channels == NULL)
        return strdup(all_channels);
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "channels", 8);
    aps_json_write_array_begin(&w);
    while (*p != '\0') {
        const char *comma = strchr(p, ',');
        size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
        aps_json_write_string(&w, p, n);
        p += n + (comma != NULL);
    }
    aps_json_write_array_end(&w);
    aps_json_write_object_end(&w);
    return cx_json_take(&w);
}

/* What the run needs while it lasts. */
typedef struct run_ctx {
    connect_args *a;
    cx_session *s;
    cx_transport *t;
    cx_stream main, filter;
    const char *request;
    int resumes;
    int64_t deadline;
    int probed;          /* the probe ran */
    int commands_probed; /* --commands ran */
    uint64_t probe_events, probe_missed;
} run_ctx;

/* No command in flight on `on` (NULL: POST /commands). */
static int commands_done_on(const cx_session *s, const cx_stream *on)
{
    size_t i;
    for (i = 0; i < s->npending; i++)
        if (s->pending[i].on == on)
            return 0;
    return 1;
}

static int commands_done(const cx_session *s)
{
    return commands_done_on(s, NULL);
}

/*
 * The next way of resuming: over SSE the three in turn, over a WebSocket
 * subscription.reconnect. A way the server refused is not tried again (its
 * refusal was said once), and one it answered from too early only when no
 * other is left (the repeats are dropped), so the rest of the run is still
 * checked. CX_RESUME_NONE when every way was refused.
 */
static cx_resume next_way(run_ctx *r)
{
    static const cx_resume sse_ways[] = { CX_RESUME_SINCE, CX_RESUME_LAST_EVENT_ID, CX_RESUME_SINCE_EVENT_ID };
    const cx_session *s = r->s;
    int k, pass;
    if (r->a->websocket)
        return s->refused[CX_RESUME_RECONNECT] ? CX_RESUME_SUBSCRIBE : CX_RESUME_RECONNECT;
    for (pass = 0; pass < 2; pass++)
        for (k = 0; k < 3; k++) {
            cx_resume how = sse_ways[(r->resumes + k) % 3];
            if (!s->refused[how] && (pass == 1 || !s->replays[how]))
                return how;
        }
    return CX_RESUME_NONE;
}

/* Drops the subscription and opens it again, resuming the next way in turn. 0, or -1 (out of memory). */
static int resume(run_ctx *r)
{
    cx_session *s = r->s;
    cx_resume how = next_way(r);
    if (how == CX_RESUME_NONE) {
        cx_note(s, "the subscription was not resumed: the server refused every way of resuming");
        return 0;
    }
    r->t->ops->close(r->t, &r->main);
    cx_pending_abandon(s, &r->main);
    cx_stream_deinit(&r->main);
    if (cx_stream_init(&r->main, s, CX_MAIN, !r->a->websocket) != 0)
        return -1;
    /* by id only when there is one to give; `since` always can */
    if ((how == CX_RESUME_LAST_EVENT_ID || how == CX_RESUME_SINCE_EVENT_ID) && s->last_id_len == 0)
        how = CX_RESUME_SINCE;
    r->main.how = how;
    r->main.has_after = s->have_last;
    r->main.after_seq = s->last_seq;
    if (how == CX_RESUME_SUBSCRIBE && s->have_last)
        r->main.skip_through = s->last_seq; /* its replay up to there is what the client had */
    r->main.drop_at = r->a->resume_after;
    r->resumes++;
    return r->t->ops->open(r->t, &r->main, r->request);
}

/* After the run, how long the filtered subscription, the commands and the probe get to catch up. */
static int64_t catch_up_ms(const connect_args *a)
{
    return (int64_t)(a->stall_s != 0 ? a->stall_s : 20) * 1000;
}

/* Reads the run: until the root lifecycle ends and the filtered subscription has what it should. */
static int read_run(run_ctx *r)
{
    cx_session *s = r->s;
    int64_t ended_at = 0, filter_end_at = 0;
    for (;;) {
        int filter_done;
        int64_t now;
        r->t->ops->pump(r->t, 50);
        now = cx_now_ms();
        if (s->io_error)
            return 0;
        if (r->main.dropped && !s->ended) {
            r->main.dropped = 0;
            if (resume(r) != 0)
                return -1;
            continue;
        }
        /* the filtered socket saw the run end (and events its filter excludes), the main one did not:
           the events went elsewhere (diagnosed when the session finishes); waiting would time out */
        if (!s->ended && s->websocket && s->misrouted > 0 && r->filter.ended) {
            if (filter_end_at == 0)
                filter_end_at = now;
            else if (now - filter_end_at > 2000)
                return 0;
        }
        if ((r->main.stop || r->main.closed) && !s->ended)
            return 0; /* failed: said where it failed */
        if (s->start_refused) {
            cx_note(s, "the run was not read: the server refused the --start command");
            return 0;
        }
        filter_done = !s->has_filter || r->filter.stop || r->filter.closed || (s->ended && s->got.n >= s->expect.n);
        if (s->ended && ended_at == 0)
            ended_at = now;
        if (s->ended && filter_done && commands_done(s))
            return 0;
        /* after the run, the filtered subscription and the commands get the stall time to catch up */
        if (s->ended && now - ended_at > (int64_t)catch_up_ms(r->a))
            return 0;
        if (now > r->deadline && r->resumes > 0 && !r->main.stop && !s->ended) {
            /* the run stopped coming on a resumed subscription: a server that loses a run's stream when
               a client reconnects shows so, and its baseline can accept that without accepting timeouts */
            cx_error(s, s->events, "resume-stalled", cx_resume_key(r->main.how), NULL,
                     "resumed by %s after seq %" PRIu64 ", the subscription got nothing after seq %" PRIu64
                     " and the run's root lifecycle did not end within %" PRIu64 " s",
                     cx_resume_name(r->main.how), r->main.after_seq, s->last_seq, r->a->timeout_s);
            return 0;
        }
        if (now > r->deadline) {
            cx_error(s, s->events, "run-timeout", NULL, NULL,
                     "timed out after %" PRIu64 " s: the run's root lifecycle did not end (%" PRIu64 " events read)",
                     r->a->timeout_s, s->events);
            return 0;
        }
    }
}

/* After the run: a resume from before the server's window (SSE `since: 0`; WebSocket the first eventId). */
static int probe(run_ctx *r)
{
    cx_session *s = r->s;
    cx_stream p;
    int64_t until = cx_now_ms() + catch_up_ms(r->a);
    if (!s->have_first || (r->a->websocket && s->first_id_len == 0))
        return 0;
    if (r->a->websocket && s->refused[CX_RESUME_RECONNECT]) {
        cx_note(s, "the probe from before the window was not run: the server refused subscription.reconnect");
        return 0;
    }
    if (until > r->deadline)
        until = r->deadline;
    if (cx_stream_init(&p, s, CX_PROBE, !r->a->websocket) != 0)
        return -1;
    p.how = r->a->websocket ? CX_RESUME_RECONNECT : CX_RESUME_SINCE;
    p.has_after = 1;
    p.after_seq = r->a->websocket ? s->first_seq : 0;
    if (r->t->ops->open(r->t, &p, r->request) != 0) {
        cx_stream_deinit(&p);
        return -1;
    }
    while (!p.stop && !p.closed && cx_now_ms() < until)
        r->t->ops->pump(r->t, 50);
    if (!p.stop && !p.closed)
        cx_error(s, 0, "probe-incomplete", cx_resume_key(p.how), NULL,
                 "the probe (resuming by %s from before the window) did not reach seq %" PRIu64 " in time",
                 cx_resume_name(p.how), s->last_seq);
    r->probed = 1;
    r->probe_events = p.count;
    r->probe_missed = p.missed;
    r->t->ops->close(r->t, &p);
    cx_pending_abandon(s, &p);
    cx_stream_deinit(&p);
    return 0;
}

/*
 * The commands probe (--commands), after the run: the protocol's commands
 * with harmless params (nothing that starts a run or answers an
 * interrupt), and one without an id. Each must be answered by id; a
 * success with the method's result, or an ErrorResponse: a server may lack
 * an optional command (not_supported, or no_such_checkpoint for the
 * checkpoint that does not exist), but unknown_command says it does not
 * know a method the protocol defines. Over a WebSocket they go on a socket
 * of their own, with no subscription.
 */
typedef struct probe_command {
    const char *method;
    const char *params; /* NULL: agent.getTree's, naming the run */
    int websocket_only; /* subscription.* act on a WebSocket's subscriptions */
} probe_command;

static const probe_command probe_commands[] = {
    { "state.get", "{\"namespace\":[]}", 0 },
    { "state.listCheckpoints", "{\"namespace\":[],\"limit\":5}", 0 },
    { "state.fork", "{\"checkpointId\":\"apstream-probe-no-such-checkpoint\"}", 0 },
    { "agent.getTree", NULL, 0 },
    { "input.inject",
      "{\"namespace\":[],\"message\":{\"role\":\"user\",\"content\":\"apstream connect: probing input.inject\"}}", 0 },
    { "subscription.unsubscribe", "{\"subscriptionId\":\"apstream-probe-no-such-subscription\"}", 1 },
};

/* One probe command: its JSON (without `id` when no_id), sent and marked pending. 0, or -1. */
static int send_probe(run_ctx *r, cx_stream *on, const char *method, const char *params, int no_id)
{
    cx_session *s = r->s;
    uint64_t id = s->next_id++;
    char *text;
    size_t cap = strlen(params) + 96;
    int rc;
    if ((text = malloc(cap)) == NULL)
        return -1;
    if (no_id)
        snprintf(text, cap, "{\"method\":\"%s\",\"params\":%s}", method, params);
    else
        snprintf(text, cap, "{\"id\":%" PRIu64 ",\"method\":\"%s\",\"params\":%s}", id, method, params);
    rc = cx_pending_add(s, id, no_id ? "command-without-id" : method, on, 0);
    if (rc == 0) {
        cx_pending_probe(s, id, no_id);
        rc = r->t->ops->command(r->t, on, text, strlen(text), id);
    }
    free(text);
    return rc;
}

static int probe_commands_run(run_ctx *r)
{
    cx_session *s = r->s;
    cx_stream socket;
    cx_stream *on = NULL;
    char tree[CX_MAX_ID * 6 + 32];
    size_t i;
    int64_t until;
    if (r->a->websocket) {
        if (cx_stream_init(&socket, s, CX_COMMANDS, 0) != 0 || r->t->ops->open(r->t, &socket, r->request) != 0)
            return -1;
        on = &socket;
    }
    if (s->run_id_len > 0) {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        aps_json_write_string(&w, s->run_id, s->run_id_len);
        snprintf(tree, sizeof tree, "{\"runId\":%.*s}", (int)aps_json_writer_len(&w), aps_json_writer_data(&w));
        aps_json_writer_deinit(&w);
    } else {
        snprintf(tree, sizeof tree, "{}");
    }
    for (i = 0; i < sizeof probe_commands / sizeof probe_commands[0]; i++) {
        const probe_command *c = &probe_commands[i];
        if ((c->websocket_only && !r->a->websocket) ||
            send_probe(r, on, c->method, c->params != NULL ? c->params : tree, 0) != 0)
            continue;
    }
    (void)send_probe(r, on, "state.get", "{\"namespace\":[]}", 1);
    until = cx_now_ms() + catch_up_ms(r->a);
    while (!commands_done_on(s, on) && cx_now_ms() < until && !s->io_error)
        r->t->ops->pump(r->t, 50);
    r->commands_probed = 1;
    if (on != NULL) {
        /* the socket's unanswered commands are said here: closing it forgets them */
        for (i = 0; i < s->npending; i++)
            if (s->pending[i].on == on)
                cx_error(s, 0, "response-missing", s->pending[i].method, "/id",
                         "command %" PRIu64 " (%s) got no response", s->pending[i].id, s->pending[i].method);
        r->t->ops->close(r->t, on);
        cx_pending_abandon(s, on);
        cx_stream_deinit(on);
    }
    return 0;
}

/* Reads and checks the --start command, before anything is connected. 0, or 2 after saying why. */
static int read_start(connect_args *a)
{
    if (a->start == NULL)
        return 0;
    if (apstream_read_file(a->start, &a->start_text, &a->start_len) != 0)
        return 2;
    if (cx_command_id(a->start_text, a->start_len, &a->start_id, a->start_method, sizeof a->start_method) != 0) {
        free(a->start_text);
        a->start_text = NULL;
        return 2;
    }
    return 0;
}

/* Sends the --start command. 0, or 2 after saying why it cannot. */
static int send_start(run_ctx *r)
{
    connect_args *a = r->a;
    r->s->has_start = 1;
    r->s->start_id = a->start_id;
    if (cx_pending_add(r->s, a->start_id, a->start_method, a->websocket ? &r->main : NULL, 0) != 0 ||
        r->t->ops->command(r->t, &r->main, a->start_text, a->start_len, a->start_id) != 0) {
        fprintf(stderr, "apstream: error: cannot send the --start command\n");
        return 2;
    }
    return 0;
}

#ifndef APSTREAM_HAVE_CONNECT_WS
cx_transport *cx_ws_transport(cx_session *s, const char *base, const char *thread, unsigned stall_s)
{
    (void)s;
    (void)base;
    (void)thread;
    (void)stall_s;
    fprintf(stderr, "apstream: error: --transport websocket: this apstream was built without libwebsockets\n");
    return NULL;
}
#endif

/* The run against an open transport; the report's counts out. 0, 1 or 2 as the exit status. */
static int check_server(run_ctx *r)
{
    cx_session *s = r->s;
    int sse = !r->a->websocket;
    if (cx_stream_init(&r->main, s, CX_MAIN, sse) != 0 || cx_stream_init(&r->filter, s, CX_FILTER, sse) != 0)
        return 2;
    r->main.drop_at = r->a->resume_after;
    r->deadline = cx_now_ms() + (int64_t)r->a->timeout_s * 1000;
    if (r->t->ops->open(r->t, &r->main, r->request) != 0 ||
        (s->has_filter && r->t->ops->open(r->t, &r->filter, r->a->filter_json) != 0))
        return 2;
    if (r->a->start_text != NULL && send_start(r) != 0)
        return 2;
    if (read_run(r) != 0)
        return 2;
    r->t->ops->close(r->t, &r->main);
    r->t->ops->close(r->t, &r->filter);
    cx_pending_abandon(s, &r->main);
    cx_pending_abandon(s, &r->filter);
    if (r->a->resume_after != 0 && s->ended && !s->io_error && probe(r) != 0)
        return 2;
    if (r->a->commands && !s->io_error && !s->no_endpoint && probe_commands_run(r) != 0)
        return 2;
    return 0;
}

/* --report: the main subscription's events go to the page (an on_event of cx_session). */
static void page_event(void *user, const aps_record *rec)
{
    apstream_page_event(user, rec);
}

int apstream_connect(int argc, char **argv)
{
    connect_args a;
    cx_session s;
    run_ctx r;
    char *request, *filter_text = NULL;
    size_t filter_len;
    uint64_t valid = 0, invalid = 0, found;
    char page_name[512];
    apstream_page *page = NULL; /* --report */
    int rc;
    if ((rc = parse_args(argc, argv, &a)) != 0)
        return rc == 1 ? 0 : rc;
    if (apstream_baseline_begin(&a.o) != 0) {
        apstream_baseline_free();
        return 2;
    }
    if (read_start(&a) != 0)
        return 2;
    if (a.filter != NULL) {
        if (apstream_read_file(a.filter, &filter_text, &filter_len) != 0) {
            free(a.start_text);
            return 2;
        }
        a.filter_json = filter_text;
    } else {
        a.filter_json = default_filter;
        filter_len = strlen(default_filter);
    }
    apstream_diag_setup(&a.o, a.o.json_report);
    if ((request = main_request(a.channels)) == NULL || cx_session_init(&s, &a.o, stdout) != 0) {
        fprintf(stderr, "apstream: out of memory\n");
        free(request);
        free(filter_text);
        free(a.start_text);
        return 2;
    }
    s.websocket = a.websocket;
    if (a.report != NULL) {
        /* the page sees each event of the main subscription before the checker, and every finding */
        snprintf(page_name, sizeof page_name, "%.400s thread %.80s", a.url, a.thread);
        if ((page = apstream_page_open(a.report, page_name)) == NULL) {
            cx_session_deinit(&s);
            free(request);
            free(filter_text);
            free(a.start_text);
            return 2;
        }
        apstream_page_listen(page);
        s.on_event = page_event;
        s.on_event_user = page;
    }
    if ((!a.no_filter && cx_session_set_filter(&s, a.filter_json, filter_len, 0) != 0) ||
        (a.channels != NULL && cx_session_set_filter(&s, request, strlen(request), 1) != 0)) {
        cx_session_deinit(&s);
        free(request);
        free(filter_text);
        free(a.start_text);
        return 2;
    }
    s.url = a.url;
    memset(&r, 0, sizeof r);
    r.a = &a;
    r.s = &s;
    r.request = request;
    r.t = a.websocket ? cx_ws_transport(&s, a.url, a.thread, (unsigned)a.stall_s)
                      : cx_sse_transport(&s, a.url, a.thread, (unsigned)a.stall_s);
    if (a.o.json_report)
        fputs("{\"errors\":[", stdout);
    rc = r.t != NULL ? check_server(&r) : 2;
    if (r.t != NULL)
        r.t->ops->free(r.t);
    cx_stream_deinit(&r.main);
    cx_stream_deinit(&r.filter);
    if (s.check != NULL)
        apstream_check_counts(s.check, &valid, &invalid);
    found = cx_session_finish(&s, s.ended);
    /* nothing read, and no failure says why */
    if (s.events == 0 && rc == 0 && !s.io_error && s.errors == 0 && !s.no_endpoint && !s.routing_said)
        cx_error(&s, 0, "no-events", NULL, NULL, "no events: nothing was checked");
    if (a.o.json_report)
        printf("\n],\"valid\":%" PRIu64 ",\"invalid\":%" PRIu64 "}\n", valid, invalid);
    else if (!s.io_error) /* as validate: no count when nothing could be read */
        printf("%" PRIu64 " valid, %" PRIu64 " invalid\n", valid, invalid);
    fflush(stdout);
    /* what was checked, so that a pass says what it covered */
    fprintf(stderr, "apstream connect: %" PRIu64 " events, %d resumes, the filtered subscription %zu of %zu expected",
            s.events, r.resumes, s.got.n, s.expect.n);
    if (r.probed && r.probe_missed > 0)
        fprintf(stderr, ", the probe from before the window: a miss of %" PRIu64 " events, then %" PRIu64 " events",
                r.probe_missed, r.probe_events);
    else if (r.probed)
        fprintf(stderr, ", the probe from before the window: no miss, %" PRIu64 " events", r.probe_events);
    if (r.commands_probed)
        fprintf(stderr, ", commands: %" PRIu64 " answered (%" PRIu64 " with an ErrorResponse)", s.probe_answered,
                s.probe_refused);
    fputc('\n', stderr);
    apstream_diag_end();
    if (apstream_baseline_end(&a.o) != 0 && rc == 0)
        rc = 2;
    if (rc == 0 && s.io_error)
        rc = 2;
    if (rc == 0 && (s.errors > 0 || invalid > 0 || found > 0))
        rc = 1;
    if (page != NULL) {
        apstream_page_verdict v;
        memset(&v, 0, sizeof v);
        v.command = "connect";
        v.exit_status = rc;
        v.strict = 1;
        v.valid = valid;
        v.invalid = invalid;
        if (apstream_page_close(page, &v) != 0 && rc == 0)
            rc = 2;
    }
    cx_session_deinit(&s);
    free(request);
    free(filter_text);
    free(a.start_text);
    return rc;
}
