/*
 * serve.c - `apstream serve`: a mock agent server for UI developers and
 * client CI, on the thread server (ap_server.h).
 *
 *   apstream serve [--listen HOST:PORT] --script FILE [--script FILE]...
 *                  [--pace realtime|MS|0] [--redis URL] [--api-key KEY]
 *                  [--cors ORIGINS] [--drop-after N] [--window N]
 *
 * Each `run.start` on a thread plays the next script (a capture, JSONL or
 * SSE; the scripts in turn) as a new run of that thread: the server numbers
 * its events after the thread's log, gives them fresh eventIds and
 * timestamps and the run's new runId; everything else goes out as
 * recorded, whatever the schema says of it (docs/server.md). A script with
 * no root lifecycle event is framed by `running` and `completed`, and one
 * whose last root lifecycle status is not terminal (completed, failed,
 * interrupted) is ended by a root `completed` after its last event. After an
 * `input.requested` (and the root `interrupted` right after it, if any)
 * the script waits for `input.respond`. `state.get` and GET …/state answer
 * the latest root values; `agent.getTree` the namespaces seen, with the
 * status of their last lifecycle event; any other method `not_supported`.
 * With --redis URL every thread's log is on Redis Streams (the run name is
 * the thread id, keys under "apstream:"), so that several serve processes
 * on one Redis are replicas: any of them answers any subscription, resume
 * and state request, and a thread's seqs continue across restarts; the
 * REST records (threads, runs, assistants' runs, store items) live there
 * too (rest_redis.c), so a thread made on one replica runs on another.
 *
 * GET /inspect answers the page of `apstream report` in live mode
 * (report.html): read-only, see "/inspect" below and docs/apstream.md.
 * Every other request goes to the REST API (rest.h, docs/rest.md): a REST
 * run plays the next script of its assistant's graph through the same
 * player, so that it is one run on both streams.
 *
 * Prints "listening on http://HOST:PORT" on standard output when ready,
 * one log line per connection and command on standard error, and runs
 * until SIGINT or SIGTERM (exit 0). --drop-after N closes an event stream
 * once it has sent N events past the furthest any earlier stream of its
 * thread got (a test knob: the clients reconnect, are replayed the run,
 * and get N events further each time).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ap_replay.h"
#include "ap_response.h"
#include "ap_server.h"
#include "apstream.h"
#include "rest.h"
#ifdef APSTREAM_HAVE_REDIS
#include "aps/replay_redis.h"
#endif

#define MAX_SCRIPTS 64
#define MAX_GAP_MS 5000u /* realtime pacing keeps a capture's gaps up to this long */

/* An event of a script, read once when the script is loaded. */
typedef struct script_event {
    char *json;          /* NUL-terminated */
    char *ns;            /* params.namespace as JSON, or NULL (no envelope) */
    uint64_t time;       /* the capture's params.timestamp (0: none) */
    int input_request;   /* an input.requested: the run waits for input.respond after it */
    int root_lifecycle;  /* a root lifecycle event, whose `status` says what */
    int lifecycle;       /* a lifecycle event of any namespace: `status` and `graph` say its node's */
    char status[16];
    char graph[64];
} script_event;

typedef struct script {
    script_event *events;
    size_t count, cap;
    int opened;    /* has a root lifecycle event: no `running` of ours before it */
    int ends;      /* its last root lifecycle event is terminal: no `completed` of ours after it */
} script;

typedef struct known_ns {
    char *json;    /* the namespace as JSON */
    char status[16];
    char graph[64];
} known_ns;

typedef struct serve_thread {
    char id[256];
    unsigned runs;
    int playing;
    int waiting;   /* an input.requested waits for input.respond */
    int answered;
    pthread_t player;
    int joinable;
    known_ns *ns;
    size_t nns;
    asm_run *assembler;          /* /inspect: the latest run's, fed what it publishes (under sv->lock) */
    aps_json_writer messages;    /* what it delivered: open arrays of {"seq", "value"} */
    aps_json_writer tools;
    uint64_t seq;                /* the seq of the event being fed */
    char run_id[64];             /* the run playing: the REST API's run id, or run-N (under sv->lock) */
    int cancel;                  /* the REST API stopped the run (under sv->lock) */
    unsigned gen;                /* which player is the thread's: an older one stops (under sv->lock) */
    int refused;                 /* the protocol log refused one of its events (said once) */
    struct serve_thread *next;
} serve_thread;

typedef struct serve {
    ap_server *srv;
    script scripts[MAX_SCRIPTS];
    size_t nscripts, next_script;
    long pace_ms;  /* -1: realtime */
    const char *redis; /* --redis URL, or NULL: the logs in memory */
    size_t window;     /* --window N: the events each thread's log keeps (0: the default) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    serve_thread *threads;
    char *page;        /* /inspect: the live page */
    size_t page_len;
    volatile sig_atomic_t stop;
    rest *rest;        /* the REST API (docs/rest.md) */
} serve;

typedef struct player_args {
    serve *sv;
    serve_thread *t;
    const script *sc;
    char run_id[64];
    pthread_t previous;   /* a player of the same thread to wait for first (a run that replaced it) */
    unsigned gen;         /* the thread's gen when this player started */
    char last_run[64];    /* the run id its last event went out under */
    int ended;            /* its last root lifecycle event was terminal */
    int has_previous;
} player_args;

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    (void)sig;
    got_signal = 1;
}

static void log_line(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "apstream serve: %s\n", line);
}

/* ---- scripts ------------------------------------------------------------------ */

/* A string member of a raw object into buf[cap] (cut short: not taken); 0 when absent or not a string. */
static int member_string(aps_json_raw obj, const char *name, aps_arena *arena, char *buf, size_t cap)
{
    aps_json_raw v;
    aps_json_reader r;
    aps_slice s;
    if (aps_json_raw_member(obj, name, strlen(name), arena, &v, NULL) != APS_OK)
        return 0;
    aps_json_raw_reader(&r, v, arena);
    if (aps_json_read_string(&r, &s, NULL) != APS_OK || s.len >= cap)
        return 0;
    memcpy(buf, s.ptr, s.len);
    buf[s.len] = '\0';
    return 1;
}

/*
 * Reads what playing needs of an event once: its namespace, the capture's
 * time, whether it asks for input, and its lifecycle status and graph.
 * 0, or -1 out of memory.
 */
static int describe(script_event *e, const char *text, size_t len, aps_arena *arena)
{
    aps_json_raw root, params, nsraw, data, ts;
    aps_json_reader r;
    aps_replay_meta meta;
    char method[16];
    memset(e, 0, sizeof *e);
    /* padded: the assembler of /inspect reads the text as a padded record (aps/asm.h) */
    if ((e->json = calloc(1, len + 1 + APS_PADDING)) == NULL)
        return -1;
    memcpy(e->json, text, len);
    e->json[len] = '\0';
    root.ptr = e->json;
    root.len = len;
    if (ap_event_replay_meta_text(e->json, len, NULL, arena, &meta, NULL) != APS_OK ||
        aps_json_raw_member(root, "params", 6, arena, &params, NULL) != APS_OK ||
        aps_json_raw_member(params, "namespace", 9, arena, &nsraw, NULL) != APS_OK)
        return 0; /* not an event: served as it is, and refused by the server */
    if ((e->ns = malloc(nsraw.len + 1)) == NULL)
        return -1;
    memcpy(e->ns, nsraw.ptr, nsraw.len);
    e->ns[nsraw.len] = '\0';
    if (aps_json_raw_member(params, "timestamp", 9, arena, &ts, NULL) == APS_OK) {
        aps_json_raw_reader(&r, ts, arena);
        if (aps_json_read_uint64(&r, &e->time, NULL) != APS_OK)
            e->time = 0;
    }
    e->input_request = member_string(root, "method", arena, method, sizeof method) &&
                       strcmp(method, "input.requested") == 0;
    if (meta.channel == APS_CHANNEL_LIFECYCLE && aps_json_raw_member(params, "data", 4, arena, &data, NULL) == APS_OK &&
        member_string(data, "event", arena, e->status, sizeof e->status)) {
        e->lifecycle = 1;
        e->root_lifecycle = meta.ns.count == 0;
        if (!member_string(data, "graph_name", arena, e->graph, sizeof e->graph))
            (void)member_string(data, "graphName", arena, e->graph, sizeof e->graph);
    }
    return 0;
}

static void script_event_free(script_event *e)
{
    free(e->json);
    free(e->ns);
}

typedef struct loading {
    script *sc;
    aps_arena arena;
} loading;

/*
 * Whether a lifecycle status ends a run (AgentStatus, cddl/protocol.cddl):
 * what the reference client waits for before it lets a run's streams go.
 */
static int terminal(const char *status)
{
    return strcmp(status, "completed") == 0 || strcmp(status, "failed") == 0 || strcmp(status, "interrupted") == 0;
}

static int keep_record(void *user, const aps_record *rec)
{
    loading *l = user;
    script *sc = l->sc;
    if (sc->count == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 64;
        script_event *grown = realloc(sc->events, cap * sizeof *grown);
        if (grown == NULL)
            return 1;
        sc->events = grown;
        sc->cap = cap;
    }
    aps_arena_reset(&l->arena);
    if (describe(&sc->events[sc->count], rec->text, rec->len, &l->arena) != 0) {
        script_event_free(&sc->events[sc->count]);
        return 1;
    }
    if (sc->events[sc->count].root_lifecycle) {
        sc->opened = 1;
        sc->ends = terminal(sc->events[sc->count].status);
    }
    sc->count++;
    return 0;
}

static void record_error(void *user, uint64_t line, const aps_error *err)
{
    (void)user;
    (void)apstream_report(stderr, line, "framing", NULL, err);
}

static int load_script(const char *path, script *sc)
{
    apstream_options o;
    loading l;
    apstream_gate gate;
    memset(&o, 0, sizeof o);
    o.file = path;
    o.max_record = 64u << 20;
    o.type_name = "Message";
    l.sc = sc;
    aps_arena_init(&l.arena, NULL);
    gate = apstream_read_records(&o, APS_FORMAT_AUTO, keep_record, record_error, &l);
    aps_arena_deinit(&l.arena);
    if (gate != APSTREAM_INPUT_OK || sc->count == 0) {
        fprintf(stderr, "apstream: error: %s: no events to serve\n", path);
        return -1;
    }
    return 0;
}

/* ---- playing a run ---------------------------------------------------------------- */

static void sleep_ms(unsigned ms)
{
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

/* Notes the namespace and lifecycle status of an event for agent.getTree (under sv->lock). */
static void note_namespace(serve_thread *t, const script_event *e)
{
    size_t i;
    known_ns *k = NULL;
    if (e->ns == NULL)
        return;
    for (i = 0; i < t->nns && k == NULL; i++)
        if (strcmp(t->ns[i].json, e->ns) == 0)
            k = &t->ns[i];
    if (k == NULL) {
        known_ns *grown = realloc(t->ns, (t->nns + 1) * sizeof *grown);
        if (grown == NULL)
            return;
        t->ns = grown;
        k = &t->ns[t->nns];
        memset(k, 0, sizeof *k);
        if ((k->json = strdup(e->ns)) == NULL)
            return;
        strcpy(k->status, "running");
        t->nns++;
    }
    if (e->lifecycle) {
        strcpy(k->status, e->status);
        if (e->graph[0] != '\0')
            strcpy(k->graph, e->graph);
    }
}

/*
 * Publishes an event of the run, and feeds it to the thread's assembler
 * once it is published: both under sv->lock, so that /inspect, which reads
 * the assembled values under it too, has every value an event it was sent
 * completed.
 */
static int publish(player_args *a, const script_event *e)
{
    aps_error err = APS_ERROR_INIT;
    aps_slice tid, run;
    aps_record rec;
    aps_status st;
    char run_id[64];
    tid.ptr = a->t->id;
    tid.len = strlen(a->t->id);
    pthread_mutex_lock(&a->sv->lock);
    if (a->t->cancel || a->t->gen != a->gen) {
        pthread_mutex_unlock(&a->sv->lock);
        return -1; /* stopped, or replaced: nothing more of this run */
    }
    /* (a run resumed by the REST API goes on under the new run's id) */
    snprintf(run_id, sizeof run_id, "%s", a->t->run_id[0] ? a->t->run_id : a->run_id);
    run.ptr = run_id;
    run.len = strlen(run_id);
    memcpy(a->last_run, run_id, sizeof a->last_run);
    if (e->root_lifecycle)
        a->ended = terminal(e->status);
    note_namespace(a->t, e);
    st = ap_server_publish_json(a->sv->srv, tid, e->json, strlen(e->json), run, &a->t->seq, &err);
    if (st == APS_OK && a->t->assembler != NULL) {
        memset(&rec, 0, sizeof rec);
        rec.text = e->json;
        rec.len = strlen(e->json);
        rec.line = a->t->seq;
        (void)apstream_asm_record(a->t->assembler, &rec);
    }
    if (st != APS_OK && !a->t->refused) /* (said once a thread: a refusal is a condition, not one event's) */
        fprintf(stderr, "apstream serve: %s: an event of the script was not served: %s\n", a->t->id, err.message);
    a->t->refused |= st != APS_OK;
    pthread_mutex_unlock(&a->sv->lock);
    /* the same event on the run's classic stream (outside sv->lock: the REST layer calls back into
     * serve), even when the protocol log refused it (a thread past max_threads): a REST run does
     * not hang on the protocol stream's limits */
    if (a->sv->rest != NULL)
        rest_event(a->sv->rest, a->t->id, run_id, e->json, strlen(e->json));
    return st == APS_OK ? 0 : -1;
}

/*
 * The thread takes input.respond from now on: said before the events that
 * pause the run are published, since a client may answer as soon as it
 * sees them.
 */
static void expect_answer(player_args *a)
{
    pthread_mutex_lock(&a->sv->lock);
    a->t->waiting = 1;
    a->t->answered = 0;
    pthread_mutex_unlock(&a->sv->lock);
}

/* Waits for input.respond on the thread (expect_answer first); 0, or -1 when the server stops. */
static int wait_for_answer(player_args *a)
{
    int rc;
    pthread_mutex_lock(&a->sv->lock);
    while (!a->t->answered && !a->sv->stop && !a->t->cancel && a->t->gen == a->gen)
        pthread_cond_wait(&a->sv->cond, &a->sv->lock);
    a->t->waiting = 0;
    rc = a->t->answered ? 0 : -1;
    pthread_mutex_unlock(&a->sv->lock);
    return rc;
}

/* A root lifecycle event with `status`, framing a script that does not open or end its run itself. */
static script_event frame_event(char *json, const char *status)
{
    script_event e;
    memset(&e, 0, sizeof e);
    e.json = json;
    e.ns = (char *)"[]";
    e.lifecycle = e.root_lifecycle = 1;
    strcpy(e.status, status);
    return e;
}

/* The run pauses for input: its REST record ends (a command.resume run goes on from here). */
static void paused(player_args *a)
{
    char run_id[64];
    pthread_mutex_lock(&a->sv->lock);
    snprintf(run_id, sizeof run_id, "%s", a->t->run_id[0] ? a->t->run_id : a->run_id);
    pthread_mutex_unlock(&a->sv->lock);
    if (a->sv->rest != NULL)
        rest_paused(a->sv->rest, a->t->id, run_id);
}

/* Whether the REST API stopped this thread's run. */
static int cancelled(player_args *a)
{
    int c;
    pthread_mutex_lock(&a->sv->lock);
    c = a->t->cancel || a->t->gen != a->gen;
    pthread_mutex_unlock(&a->sv->lock);
    return c;
}

static void *play(void *arg)
{
    /* (padded, as the script's events are: see describe) */
    static char running[128 + APS_PADDING] = "{\"type\":\"event\",\"method\":\"lifecycle\",\"params\":{\"namespace\":[],"
                                            "\"data\":{\"event\":\"running\"}}}";
    static char completed[128 + APS_PADDING] = "{\"type\":\"event\",\"method\":\"lifecycle\",\"params\":{\"namespace\":[],"
                                              "\"data\":{\"event\":\"completed\"}}}";
    player_args *a = arg;
    const script *sc = a->sc;
    uint64_t last_time = 0;
    size_t i;
    if (a->has_previous)
        pthread_join(a->previous, NULL); /* the run this one replaced has stopped publishing */
    if (!sc->opened) {
        script_event e = frame_event(running, "running");
        publish(a, &e);
    }
    for (i = 0; i < sc->count && !a->sv->stop && !cancelled(a); i++) {
        const script_event *e = &sc->events[i];
        if (a->sv->pace_ms > 0)
            sleep_ms((unsigned)a->sv->pace_ms);
        else if (a->sv->pace_ms < 0 && last_time != 0 && e->time > last_time)
            sleep_ms(e->time - last_time > MAX_GAP_MS ? MAX_GAP_MS : (unsigned)(e->time - last_time));
        if (e->time != 0)
            last_time = e->time;
        if (e->input_request)
            expect_answer(a);
        publish(a, e);
        if (e->input_request) {
            /* the run pauses after the root `interrupted` that ends it, when the script has one before
             * its next root lifecycle event (what comes between, the paused node's tasks and
             * lifecycle, the reference server sends before it pauses too); else right here */
            size_t j = i + 1;
            while (j < sc->count && !sc->events[j].root_lifecycle)
                j++;
            if (j < sc->count && strcmp(sc->events[j].status, "interrupted") == 0)
                while (i < j)
                    publish(a, &sc->events[++i]);
            paused(a);
            if (wait_for_answer(a) != 0)
                break;
        }
    }
    /* a run that never ended would keep every client waiting: it ends when its script does (after
     * the input.respond an input.requested waits for, since that comes before) */
    if (!sc->ends && !a->sv->stop && !cancelled(a)) {
        script_event e = frame_event(completed, "completed");
        publish(a, &e);
    }
    pthread_mutex_lock(&a->sv->lock);
    if (a->last_run[0] != '\0' && !a->ended && !a->sv->stop) {
        /* stopped by the REST API (cancel, or a run that replaced it): its protocol stream is told so,
         * under the run id it was playing as (the REST layer drops it: no longer the thread's run) */
        static const char stopped[] = "{\"type\":\"event\",\"method\":\"lifecycle\",\"params\":{\"namespace\":[],"
                                      "\"data\":{\"event\":\"interrupted\"}}}";
        aps_slice tid, run;
        tid.ptr = a->t->id;
        tid.len = strlen(a->t->id);
        run.ptr = a->last_run;
        run.len = strlen(a->last_run);
        if (ap_server_publish_json(a->sv->srv, tid, stopped, sizeof stopped - 1, run, NULL, NULL) != APS_OK)
            fprintf(stderr, "apstream serve: %s: the end of a stopped run was not served\n", a->t->id);
    }
    if (a->gen == a->t->gen) /* (a player that was replaced leaves the thread to its successor) */
        a->t->playing = 0;
    pthread_cond_broadcast(&a->sv->cond);
    pthread_mutex_unlock(&a->sv->lock);
    free(a);
    return NULL;
}

/* The thread named `id`, made when missing and `create` (under sv->lock). */
static serve_thread *find_thread(serve *sv, aps_slice id, int create)
{
    serve_thread *t;
    for (t = sv->threads; t != NULL; t = t->next)
        if (strlen(t->id) == id.len && memcmp(t->id, id.ptr, id.len) == 0)
            return t;
    if (!create || id.len >= sizeof t->id || (t = calloc(1, sizeof *t)) == NULL)
        return NULL;
    memcpy(t->id, id.ptr, id.len);
    t->next = sv->threads;
    sv->threads = t;
    return t;
}

/* ---- /inspect: the live page, read-only ------------------------------------------ */

/*
 * The page of `apstream report` in live mode (report.html): it lists the
 * threads (GET /inspect/threads), subscribes to the chosen one with the
 * protocol's own SSE stream, and gets the messages and tool runs of its
 * latest run as the assembler of `apstream assemble` delivered them, fed
 * here each event this process publishes (GET /inspect/threads/ID/assembled).
 * Nothing here sends a command; the page itself holds no data, so it is
 * open; the JSON routes need the API key when there is one.
 */

static const apstream_options inspect_asm_options; /* assemble's defaults: the reference client's rules */

/* apstream_asm_sink: a delivered message ('m') or tool run ('t'), with the seq of the event that completed it. */
static void inspect_delivered(void *user, int kind, const char *json, size_t len)
{
    serve_thread *t = user;
    aps_json_writer *w = kind == 'm' ? &t->messages : &t->tools;
    aps_json_raw v = { json, len };
    aps_json_write_object_begin(w);
    aps_json_write_key(w, "seq", 3);
    aps_json_write_uint64(w, t->seq);
    aps_json_write_key(w, "value", 5);
    aps_json_write_raw(w, v);
    aps_json_write_object_end(w);
}

static void inspect_free(serve_thread *t)
{
    if (t->assembler != NULL) {
        (void)apstream_asm_close(t->assembler, 0);
        aps_json_writer_deinit(&t->messages);
        aps_json_writer_deinit(&t->tools);
    }
    t->assembler = NULL;
}

/* A new run of `t` (under sv->lock): a fresh assembler. 0, or -1 out of memory. */
static int inspect_new_run(serve_thread *t)
{
    inspect_free(t);
    if ((t->assembler = apstream_asm_open(&inspect_asm_options, 1, NULL, "warning")) == NULL)
        return -1;
    apstream_asm_sink(t->assembler, inspect_delivered, t);
    aps_json_writer_init(&t->messages, NULL);
    aps_json_writer_init(&t->tools, NULL);
    aps_json_write_array_begin(&t->messages);
    aps_json_write_array_begin(&t->tools);
    return 0;
}

/* Hands the writer's JSON to the reply: 200, or 500 when it could not be written. */
static void reply_json(ap_server_reply *reply, aps_json_writer *w)
{
    size_t n = aps_json_writer_len(w);
    if (aps_json_writer_status(w) != APS_OK || (reply->body = malloc(n > 0 ? n : 1)) == NULL) {
        reply->status = 500;
        reply->content_type = "text/plain";
        return;
    }
    memcpy(reply->body, aps_json_writer_data(w), n);
    reply->len = n;
    reply->status = 200;
    reply->content_type = "application/json";
}

static void write_string_key(aps_json_writer *w, const char *key, const char *v)
{
    aps_json_write_key(w, key, strlen(key));
    if (v != NULL)
        aps_json_write_string(w, v, strlen(v));
    else
        aps_json_write_null(w);
}

/* GET /inspect: the page. */
static void inspect_page(void *user, ap_server *srv, const char *path, ap_server_reply *reply)
{
    serve *sv = user;
    (void)srv;
    (void)path;
    if (sv->page == NULL || (reply->body = malloc(sv->page_len)) == NULL)
        return;
    memcpy(reply->body, sv->page, sv->page_len);
    reply->len = sv->page_len;
    reply->status = 200;
    reply->content_type = "text/html; charset=utf-8";
}

/* The status of the root's last lifecycle event on `t`, NULL before one. */
static const char *root_status(const serve_thread *t)
{
    size_t i;
    for (i = 0; i < t->nns; i++)
        if (strcmp(t->ns[i].json, "[]") == 0)
            return t->ns[i].status;
    return NULL;
}

/* GET /inspect/threads: {"threads": [{id, runs, run, playing, waiting, status}]}, the newest first. */
static void inspect_threads(void *user, ap_server *srv, const char *path, ap_server_reply *reply)
{
    serve *sv = user;
    serve_thread *t;
    aps_json_writer w;
    char run[32];
    (void)srv;
    (void)path;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "threads", 7);
    aps_json_write_array_begin(&w);
    pthread_mutex_lock(&sv->lock);
    for (t = sv->threads; t != NULL; t = t->next) {
        snprintf(run, sizeof run, "run-%u", t->runs);
        aps_json_write_object_begin(&w);
        write_string_key(&w, "id", t->id);
        aps_json_write_key(&w, "runs", 4);
        aps_json_write_uint64(&w, t->runs);
        write_string_key(&w, "run", t->runs > 0 ? run : NULL);
        aps_json_write_key(&w, "playing", 7);
        aps_json_write_bool(&w, t->playing);
        aps_json_write_key(&w, "waiting", 7);
        aps_json_write_bool(&w, t->waiting);
        write_string_key(&w, "status", root_status(t));
        aps_json_write_object_end(&w);
    }
    pthread_mutex_unlock(&sv->lock);
    aps_json_write_array_end(&w);
    aps_json_write_object_end(&w);
    reply_json(reply, &w);
    aps_json_writer_deinit(&w);
}

/* The values of an open array of them (`items`; NULL: none), closed, under `key`. */
static void write_kept(aps_json_writer *w, const char *key, const aps_json_writer *items)
{
    size_t n = items != NULL ? aps_json_writer_len(items) : 0;
    char *text = n > 0 && aps_json_writer_status(items) == APS_OK ? malloc(n + 1) : NULL;
    aps_json_write_key(w, key, strlen(key));
    if (text == NULL) {
        aps_json_write_array_begin(w);
        aps_json_write_array_end(w);
        return;
    }
    memcpy(text, aps_json_writer_data(items), n);
    text[n] = ']';
    {
        aps_json_raw v = { text, n + 1 };
        aps_json_write_raw(w, v);
    }
    free(text);
}

/* GET /inspect/threads/ID/assembled: {"thread", "run", "messages": [{seq, value}], "tools": [...]}. */
static void inspect_assembled(void *user, ap_server *srv, const char *path, ap_server_reply *reply)
{
    static const char suffix[] = "/assembled";
    serve *sv = user;
    size_t n = strlen(path), pre = strlen("/inspect/threads/");
    aps_slice id;
    serve_thread *t;
    aps_json_writer w;
    char run[32];
    (void)srv;
    if (n <= pre + sizeof suffix - 1 || strcmp(path + n - (sizeof suffix - 1), suffix) != 0)
        return; /* 404 */
    id.ptr = path + pre;
    id.len = n - pre - (sizeof suffix - 1);
    aps_json_writer_init(&w, NULL);
    pthread_mutex_lock(&sv->lock);
    if ((t = find_thread(sv, id, 0)) != NULL) {
        snprintf(run, sizeof run, "run-%u", t->runs);
        aps_json_write_object_begin(&w);
        aps_json_write_key(&w, "thread", 6);
        aps_json_write_string(&w, t->id, strlen(t->id));
        write_string_key(&w, "run", t->runs > 0 ? run : NULL);
        write_kept(&w, "messages", t->assembler != NULL ? &t->messages : NULL);
        write_kept(&w, "tools", t->assembler != NULL ? &t->tools : NULL);
        aps_json_write_object_end(&w);
    }
    pthread_mutex_unlock(&sv->lock);
    if (t != NULL)
        reply_json(reply, &w);
    aps_json_writer_deinit(&w);
}

static const ap_server_route inspect_routes[] = {
    { "/inspect", 1, inspect_page },
    { "/inspect/threads", 0, inspect_threads },
    { "/inspect/threads/", 0, inspect_assembled },
};

/* ---- commands ------------------------------------------------------------------- */

static aps_status error_response(ap_message_t *response, const ap_command_t *cmd, ap_error_code_t code,
                                 const char *why)
{
    aps_slice m;
    m.ptr = why;
    m.len = strlen(why);
    ap_response_error(response, cmd, code, m);
    return APS_OK;
}

/* The graph a script plays: its first root lifecycle event's graph_name ("agent" without one). */
static const char *script_graph(const script *sc)
{
    size_t i;
    for (i = 0; i < sc->count; i++)
        if (sc->events[i].root_lifecycle && sc->events[i].graph[0] != '\0')
            return sc->events[i].graph;
    return "agent";
}

/*
 * Starts a player of the next script on `t` (under sv->lock), named
 * `run_id` (NULL: run-N). A player still ending (stopped by the REST API)
 * is joined by the new one, not here: this runs on the service thread.
 * 0, or -1 out of memory.
 */
static int spawn_player(serve *sv, serve_thread *t, const char *run_id, const char *graph)
{
    player_args *a;
    size_t k;
    if ((a = calloc(1, sizeof *a)) == NULL || inspect_new_run(t) != 0) {
        free(a);
        return -1;
    }
    a->sv = sv;
    a->t = t;
    a->sc = &sv->scripts[sv->next_script++ % sv->nscripts];
    /* a run of an assistant plays that graph's scripts (the next of them in turn) */
    for (k = 0; graph != NULL && k < sv->nscripts; k++) {
        const script *sc = &sv->scripts[(sv->next_script - 1 + k) % sv->nscripts];
        if (strcmp(script_graph(sc), graph) == 0) {
            a->sc = sc;
            sv->next_script += k;
            break;
        }
    }
    ++t->runs;
    if (run_id != NULL)
        snprintf(a->run_id, sizeof a->run_id, "%s", run_id);
    else
        snprintf(a->run_id, sizeof a->run_id, "run-%u", t->runs);
    snprintf(t->run_id, sizeof t->run_id, "%s", a->run_id);
    if (t->joinable) {
        a->previous = t->player;
        a->has_previous = 1;
    }
    /* the player before, if still running, sees that it is no longer the thread's and stops */
    a->gen = ++t->gen;
    pthread_cond_broadcast(&sv->cond);
    t->cancel = 0;
    t->waiting = 0;
    t->answered = 0;
    t->playing = 1;
    if (pthread_create(&t->player, NULL, play, a) != 0) {
        t->playing = 0;
        t->joinable = a->has_previous;
        if (a->has_previous)
            t->player = a->previous;
        free(a);
        return -1;
    }
    t->joinable = 1;
    return 0;
}

static aps_status start_run(serve *sv, serve_thread *t, const ap_command_t *cmd, ap_message_t *response,
                            aps_arena *arena)
{
    ap_result_data_t *r;
    char *run;
    if (t->playing)
        return error_response(response, cmd, AP_ERROR_CODE_INVALID_ARGUMENT,
                              "a run is in progress on this thread: wait for it to end");
    if (spawn_player(sv, t, NULL, NULL) != 0)
        return APS_E_NOMEM;
    /* the REST API sees this run too (lock order: serve's, then the REST layer's) */
    if (sv->rest != NULL)
        rest_external_run(sv->rest, t->id, t->run_id);
    r = ap_response_success(response, cmd);
    if ((run = aps_arena_alloc(arena, strlen(t->run_id) + 1)) == NULL)
        return APS_E_NOMEM;
    strcpy(run, t->run_id);
    r->u.run_result.has_run_id = true;
    r->u.run_result.run_id.ptr = run;
    r->u.run_result.run_id.len = strlen(run);
    return APS_OK;
}

static aps_status state_get(serve *sv, const ap_server_command *c, ap_message_t *response, aps_arena *arena)
{
    char *state, *text;
    size_t len;
    ap_result_data_t *r;
    ap_state_get_result_t decoded;
    if (ap_server_state(sv->srv, c->thread_id, &state, &len) != APS_OK)
        return error_response(response, c->command, AP_ERROR_CODE_NO_SUCH_RUN, "this thread has no state yet");
    text = aps_arena_alloc(arena, len + 16);
    if (text == NULL) {
        free(state);
        return APS_E_NOMEM;
    }
    snprintf(text, len + 16, "{\"values\":%s}", state);
    free(state);
    if (ap_state_get_result_decode(text, strlen(text), arena, &decoded, NULL) != APS_OK)
        return error_response(response, c->command, AP_ERROR_CODE_UNKNOWN_ERROR,
                              "the latest values are not an object of state keys");
    r = ap_response_success(response, c->command);
    r->u.state_result.u.state_get_result = decoded;
    return APS_OK;
}

/* agent.getTree: the root, and every namespace seen as a child of its parent. */
static aps_status get_tree(serve_thread *t, const ap_server_command *c, ap_message_t *response, aps_arena *arena)
{
    aps_json_writer w;
    ap_agent_result_t tree;
    ap_result_data_t *r;
    aps_status st;
    size_t i;
    char *text;
    const char *root_status = "running", *root_graph = "agent";
    aps_json_writer_init(&w, NULL);
    for (i = 0; i < t->nns; i++) {
        if (strcmp(t->ns[i].json, "[]") == 0) {
            root_status = t->ns[i].status;
            if (t->ns[i].graph[0] != '\0')
                root_graph = t->ns[i].graph;
        }
    }
    /* a flat tree: each namespace under the root (its parent's children would need the
     * protocol's cause links; the getTree result only promises the nodes and their status) */
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "tree", 4);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "namespace", 9);
    aps_json_write_array_begin(&w);
    aps_json_write_array_end(&w);
    aps_json_write_key(&w, "status", 6);
    aps_json_write_string(&w, root_status, strlen(root_status));
    aps_json_write_key(&w, "graphName", 9);
    aps_json_write_string(&w, root_graph, strlen(root_graph));
    aps_json_write_key(&w, "children", 8);
    aps_json_write_array_begin(&w);
    for (i = 0; i < t->nns; i++) {
        aps_json_raw ns;
        if (strcmp(t->ns[i].json, "[]") == 0)
            continue;
        ns.ptr = t->ns[i].json;
        ns.len = strlen(t->ns[i].json);
        aps_json_write_object_begin(&w);
        aps_json_write_key(&w, "namespace", 9);
        aps_json_write_raw(&w, ns);
        aps_json_write_key(&w, "status", 6);
        aps_json_write_string(&w, t->ns[i].status, strlen(t->ns[i].status));
        aps_json_write_key(&w, "graphName", 9);
        aps_json_write_string(&w, t->ns[i].graph[0] ? t->ns[i].graph : "subgraph",
                              strlen(t->ns[i].graph[0] ? t->ns[i].graph : "subgraph"));
        aps_json_write_object_end(&w);
    }
    aps_json_write_array_end(&w);
    aps_json_write_object_end(&w);
    aps_json_write_object_end(&w);
    st = aps_json_writer_finish(&w, NULL);
    text = st == APS_OK ? aps_arena_alloc(arena, aps_json_writer_len(&w)) : NULL;
    if (text != NULL) {
        memcpy(text, aps_json_writer_data(&w), aps_json_writer_len(&w));
        st = ap_agent_result_decode(text, aps_json_writer_len(&w), arena, &tree, NULL);
    } else {
        st = APS_E_NOMEM;
    }
    aps_json_writer_deinit(&w);
    if (st != APS_OK)
        return error_response(response, c->command, AP_ERROR_CODE_UNKNOWN_ERROR, "the agent tree did not build");
    r = ap_response_success(response, c->command);
    r->u.agent_result = tree;
    return APS_OK;
}

static aps_status on_command(void *user, ap_server *srv, const ap_server_command *c, ap_message_t *response,
                             aps_arena *arena)
{
    serve *sv = user;
    serve_thread *t;
    aps_status st = APS_OK;
    (void)srv;
    pthread_mutex_lock(&sv->lock);
    t = find_thread(sv, c->thread_id, c->command->command_data.kind == AP_COMMAND_DATA_RUN_START);
    switch (c->command->command_data.kind) {
    case AP_COMMAND_DATA_RUN_START:
        st = t != NULL ? start_run(sv, t, c->command, response, arena) : APS_E_NOMEM;
        break;
    case AP_COMMAND_DATA_INPUT_RESPOND:
        if (t == NULL || !t->waiting) {
            st = error_response(response, c->command, AP_ERROR_CODE_NO_SUCH_INTERRUPT,
                                "no run of this thread waits for input");
        } else {
            t->answered = 1;
            pthread_cond_broadcast(&sv->cond);
            (void)ap_response_success(response, c->command);
        }
        break;
    case AP_COMMAND_DATA_STATE_GET:
        st = state_get(sv, c, response, arena);
        break;
    case AP_COMMAND_DATA_AGENT_GET_TREE:
        st = t != NULL ? get_tree(t, c, response, arena)
                       : error_response(response, c->command, AP_ERROR_CODE_NO_SUCH_RUN, "no run on this thread yet");
        break;
    default:
        st = error_response(response, c->command, AP_ERROR_CODE_NOT_SUPPORTED, "apstream serve does not do this");
        break;
    }
    pthread_mutex_unlock(&sv->lock);
    return st;
}

/* ---- the REST API's hooks (rest.h) ------------------------------------------------ */

/* rest_hooks.start: the next script as run `run_id`, or the answer to the thread's paused run. */
static int rest_start(void *user, const char *thread_id, const char *run_id, const char *graph, int resume,
                      const char *resume_json)
{
    serve *sv = user;
    serve_thread *t;
    aps_slice id;
    int rc = 0;
    (void)resume_json; /* a script's answer is recorded: whatever the client answers, it plays on */
    id.ptr = thread_id;
    id.len = strlen(thread_id);
    pthread_mutex_lock(&sv->lock);
    if (sv->stop || (t = find_thread(sv, id, 1)) == NULL) {
        rc = -1; /* (stopping: the players are joined, no new one starts) */
    } else if (resume && t->waiting) {
        snprintf(t->run_id, sizeof t->run_id, "%s", run_id);
        t->answered = 1;
        pthread_cond_broadcast(&sv->cond);
    } else {
        if (t->playing) {
            t->cancel = 1; /* the REST API replaced it: it stops, and the new player waits for it */
            pthread_cond_broadcast(&sv->cond);
        }
        rc = spawn_player(sv, t, run_id, graph);
    }
    pthread_mutex_unlock(&sv->lock);
    return rc;
}

/* rest_hooks.cancel: the thread's player stops, without a wait. */
static void rest_cancel(void *user, const char *thread_id)
{
    serve *sv = user;
    serve_thread *t;
    aps_slice id;
    id.ptr = thread_id;
    id.len = strlen(thread_id);
    pthread_mutex_lock(&sv->lock);
    if ((t = find_thread(sv, id, 0)) != NULL && t->playing) {
        t->cancel = 1;
        pthread_cond_broadcast(&sv->cond);
    }
    pthread_mutex_unlock(&sv->lock);
}

/* ap_server_api_fn: the REST API, on serve's rest. */
static void serve_api(void *user, ap_server *srv, const ap_server_request *req, ap_server_reply *reply)
{
    serve *sv = user;
    rest_api(sv->rest, srv, req, reply);
}


/* ---- the command line ---------------------------------------------------------- */

#ifdef APSTREAM_HAVE_REDIS
/* --redis: the log of thread `id`, a run on Redis named after it (ap_server_open_log_fn). */
static aps_status open_redis_log(void *user, aps_slice id, aps_replay_store **out, aps_error *err)
{
    serve *sv = user;
    aps_replay_redis_options ro;
    char run[256];
    if (id.len >= sizeof run || memchr(id.ptr, '\0', id.len) != NULL)
        return aps_error_set(err, APS_E_ARGUMENT, 0, "a thread id of 1-255 bytes without NUL");
    memcpy(run, id.ptr, id.len);
    run[id.len] = '\0';
    memset(&ro, 0, sizeof ro);
    ro.url = sv->redis;
    ro.run = run;
    ro.key_prefix = "apstream:";
    ro.retry_ms = 2000;
    ro.replay.max_events = sv->window; /* (0: the store's default) */
    return aps_replay_redis_open(out, &ro, err);
}
#endif

static const char serve_usage_text[] =
    "usage: apstream serve [--listen HOST:PORT] --script FILE [--script FILE]...\n"
    "                      [--pace realtime|MS|0] [--redis URL] [--api-key KEY] [--cors ORIGINS]\n"
    "                      [--drop-after N] [--window N]\n"
    "\n"
    "  --listen HOST:PORT   where to listen (default 127.0.0.1:8123; PORT 0: any free port)\n"
    "  --script FILE        a capture (JSONL or SSE) each run.start plays, the scripts in turn\n"
    "  --pace P             realtime: the capture's own gaps (at most 5 s each, the default);\n"
    "                       MS: that many milliseconds between events; 0: as fast as possible\n"
    "  --redis URL          keep every thread's log and the REST records (threads, runs,\n"
    "                       items) on Redis (redis://HOST[:PORT][/DB]): serve processes on\n"
    "                       one Redis are replicas, each answering every thread\n"
    "  --api-key KEY        require it as x-api-key or Authorization: Bearer\n"
    "  --cors ORIGINS       comma-separated origins allowed to call from a browser (* any)\n"
    "  --drop-after N       close an event stream after N events past the furthest an earlier\n"
    "                       stream of its thread got (a test knob: clients reconnect)\n"
    "  --window N           keep only the last N events of each thread for replay (default:\n"
    "                       aps/replay.h's): an older replay point is answered with a miss,\n"
    "                       and a subscriber further behind is told what it missed\n"
    "\n"
    "GET /inspect is the page of `apstream report`, live: the threads, and the chosen one's\n"
    "events as they arrive (read-only; with --api-key, type the key into the page).\n"
    "It also answers the REST API of threads, runs, assistants and the store that the\n"
    "reference client's Client and useStream call (docs/rest.md): an assistant per graph its\n"
    "scripts play, a run the next script of its graph, the same run on both streams.\n"
    "Prints \"listening on http://HOST:PORT\" when ready, then \"assistant NAME\" for each\n"
    "assistant; stops on SIGINT or SIGTERM.\n";

static int serve_usage(const char *why)
{
    if (why != NULL)
        fprintf(stderr, "apstream: error: %s\n", why);
    fputs(serve_usage_text, stderr);
    return 2;
}

int apstream_serve(int argc, char **argv)
{
    static serve sv;
    ap_server_options opt;
    aps_error err = APS_ERROR_INIT;
    char host[256] = "127.0.0.1";
    unsigned long port = 8123;
    serve_thread *t;
    struct sigaction sa;
    int i;
    size_t k;
    memset(&opt, 0, sizeof opt);
    sv.pace_ms = -1;
    /* before any option is acted on (a --script is loaded as it is read) */
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(serve_usage_text, stdout);
            return 0;
        }
    }
    for (i = 2; i < argc; i += 2) { /* every option takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (v == NULL)
            return serve_usage("every option of serve takes a value");
        if (strcmp(a, "--listen") == 0) {
            const char *colon = strrchr(v, ':');
            if (colon == NULL || (size_t)(colon - v) >= sizeof host || apstream_parse_count(colon + 1, &n) != 0 ||
                n > 65535)
                return serve_usage("--listen takes HOST:PORT (PORT 0: any free port)");
            port = (unsigned long)n;
            memcpy(host, v, (size_t)(colon - v));
            host[colon - v] = '\0';
        } else if (strcmp(a, "--script") == 0) {
            if (sv.nscripts == MAX_SCRIPTS)
                return serve_usage("at most 64 scripts");
            if (load_script(v, &sv.scripts[sv.nscripts]) != 0)
                return 2;
            sv.nscripts++;
        } else if (strcmp(a, "--pace") == 0) {
            if (strcmp(v, "realtime") == 0) {
                sv.pace_ms = -1;
            } else {
                if (apstream_parse_count(v, &n) != 0 || n > 60000)
                    return serve_usage("--pace takes realtime, or milliseconds between events (0-60000)");
                sv.pace_ms = (long)n;
            }
        } else if (strcmp(a, "--redis") == 0) {
#ifdef APSTREAM_HAVE_REDIS
            aps_replay_redis_url url;
            if (aps_replay_redis_parse_url(v, strlen(v), &url, &err) != APS_OK) {
                fprintf(stderr, "apstream: error: --redis: %s\n", err.message);
                return 2;
            }
            sv.redis = v;
            opt.open_log = open_redis_log;
#else
            return serve_usage("--redis: this apstream was built without hiredis");
#endif
        } else if (strcmp(a, "--api-key") == 0) {
            opt.api_key = v;
        } else if (strcmp(a, "--cors") == 0) {
            opt.cors_origins = v;
        } else if (strcmp(a, "--window") == 0) {
            /* each thread's log holds this many events: a replay from before it is a miss (connect's
             * probe). A subscriber further behind is then told what it missed rather than
             * disconnected (max_lag defaults to the log's capacity), so the miss can be seen. */
            if (apstream_parse_count(v, &n) != 0 || n == 0 || n > SIZE_MAX)
                return serve_usage("--window takes a count of events (at least 1)");
            opt.replay.max_events = sv.window = (size_t)n;
            opt.max_lag = (size_t)1 << 30;
        } else if (strcmp(a, "--drop-after") == 0) {
            if (apstream_parse_count(v, &n) != 0)
                return serve_usage("--drop-after takes a count of events");
            opt.drop_after = n;
        } else {
            return serve_usage("unknown option");
        }
    }
    if (sv.nscripts == 0)
        return serve_usage("serve needs at least one --script");
    pthread_mutex_init(&sv.lock, NULL);
    pthread_cond_init(&sv.cond, NULL);
    opt.host = host;
    opt.port = (unsigned)port;
    opt.on_command = on_command;
    opt.routes = inspect_routes;
    {
        const char *graphs[MAX_SCRIPTS];
        rest_hooks hooks;
        for (k = 0; k < sv.nscripts; k++)
            graphs[k] = script_graph(&sv.scripts[k]);
        hooks.start = rest_start;
        hooks.cancel = rest_cancel;
        hooks.user = &sv;
        if ((sv.rest = rest_new(&hooks, graphs, sv.nscripts)) == NULL) {
            fprintf(stderr, "apstream: out of memory\n");
            return 2;
        }
        opt.api = serve_api;
#ifdef APSTREAM_HAVE_REDIS
        if (sv.redis != NULL) {
            /* the REST records too: threads, runs and items shared by the replicas (docs/rest.md) */
            char why[300];
            if (rest_use_redis(sv.rest, sv.redis, "apstream:", why, sizeof why) != 0) {
                fprintf(stderr, "apstream: error: --redis: %s\n", why);
                rest_free(sv.rest);
                return 2;
            }
        }
#endif
    }
    opt.nroutes = sizeof inspect_routes / sizeof *inspect_routes;
    if ((sv.page = apstream_page_live(&sv.page_len)) == NULL) {
        fprintf(stderr, "apstream: out of memory\n");
        return 2;
    }
    opt.user = &sv;
    opt.log = log_line;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (ap_server_start(&sv.srv, &opt, &err) != APS_OK) {
        fprintf(stderr, "apstream: error: %s\n", err.message);
        return 2;
    }
    rest_set_server(sv.rest, sv.srv);
    printf("listening on http://%s:%u\n", host, ap_server_port(sv.srv));
    for (k = 0; k < sv.nscripts; k++) {
        size_t j;
        int dup = 0;
        for (j = 0; j < k; j++)
            dup |= strcmp(script_graph(&sv.scripts[j]), script_graph(&sv.scripts[k])) == 0;
        if (!dup)
            printf("assistant %s\n", script_graph(&sv.scripts[k]));
    }
    fflush(stdout);
    while (!got_signal)
        sleep_ms(100);
    fprintf(stderr, "apstream serve: stopping\n");
    pthread_mutex_lock(&sv.lock);
    sv.stop = 1;
    pthread_cond_broadcast(&sv.cond);
    pthread_mutex_unlock(&sv.lock);
    for (t = sv.threads; t != NULL; t = t->next)
        if (t->joinable)
            pthread_join(t->player, NULL);
    rest_close(sv.rest); /* (its feeds wake the server's loop: before that goes) */
    ap_server_stop(sv.srv);
    while ((t = sv.threads) != NULL) {
        sv.threads = t->next;
        inspect_free(t);
        for (k = 0; k < t->nns; k++)
            free(t->ns[k].json);
        free(t->ns);
        free(t);
    }
    for (k = 0; k < sv.nscripts; k++) {
        size_t e;
        for (e = 0; e < sv.scripts[k].count; e++)
            script_event_free(&sv.scripts[k].events[e]);
        free(sv.scripts[k].events);
    }
    free(sv.page);
    rest_free(sv.rest);
    return 0;
}
