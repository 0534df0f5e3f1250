/*
 * serve.c - `apstream serve`: a mock agent server for UI developers and
 * client CI, on the thread server (ap_server.h).
 *
 *   apstream serve [--listen HOST:PORT] --script FILE [--script FILE]...
 *                  [--pace realtime|MS|0] [--api-key KEY] [--cors ORIGINS]
 *                  [--drop-after N]
 *
 * Each `run.start` on a thread plays the next script (a capture, JSONL or
 * SSE; the scripts in turn) as a new run of that thread: the server numbers
 * its events after the thread's log, gives them fresh eventIds and
 * timestamps and the run's new runId; everything else goes out as
 * recorded, whatever the schema says of it (docs/server.md). A script with
 * no root lifecycle event is framed by `running` and `completed`. After an
 * `input.requested` (and the root `interrupted` right after it, if any)
 * the script waits for `input.respond`. `state.get` and GET …/state answer
 * the latest root values; `agent.getTree` the namespaces seen, with the
 * status of their last lifecycle event; any other method `not_supported`.
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

#define MAX_SCRIPTS 64
#define MAX_GAP_MS 5000u /* realtime pacing keeps a capture's gaps up to this long */

typedef struct script {
    char **events; /* each event's JSON, NUL-terminated */
    size_t count, cap;
    int framed;    /* has a root lifecycle event: not framed by us */
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
    struct serve_thread *next;
} serve_thread;

typedef struct serve {
    ap_server *srv;
    script scripts[MAX_SCRIPTS];
    size_t nscripts, next_script;
    long pace_ms;  /* -1: realtime */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    serve_thread *threads;
    volatile sig_atomic_t stop;
} serve;

typedef struct player_args {
    serve *sv;
    serve_thread *t;
    const script *sc;
    char run_id[64];
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

static int keep_record(void *user, const aps_record *rec)
{
    script *sc = user;
    char *copy;
    if (sc->count == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 64;
        char **grown = realloc(sc->events, cap * sizeof *grown);
        if (grown == NULL)
            return 1;
        sc->events = grown;
        sc->cap = cap;
    }
    if ((copy = malloc(rec->len + 1)) == NULL)
        return 1;
    memcpy(copy, rec->text, rec->len);
    copy[rec->len] = '\0';
    sc->events[sc->count++] = copy;
    return 0;
}

static void record_error(void *user, uint64_t line, const aps_error *err)
{
    (void)user;
    apstream_report(stderr, line, err);
}

/* A root lifecycle event: its status into status[16]; 0 otherwise. */
static int root_lifecycle(const char *json, aps_arena *arena, char status[16])
{
    aps_replay_meta meta;
    aps_json_raw root = { json, strlen(json) }, params, data, ev;
    aps_json_reader r;
    aps_slice s;
    if (ap_event_replay_meta_text(json, root.len, NULL, arena, &meta, NULL) != APS_OK ||
        meta.channel != APS_CHANNEL_LIFECYCLE || meta.ns.count != 0 ||
        aps_json_raw_member(root, "params", 6, arena, &params, NULL) != APS_OK ||
        aps_json_raw_member(params, "data", 4, arena, &data, NULL) != APS_OK ||
        aps_json_raw_member(data, "event", 5, arena, &ev, NULL) != APS_OK)
        return 0;
    aps_json_raw_reader(&r, ev, arena);
    if (aps_json_read_string(&r, &s, NULL) != APS_OK || s.len >= 16)
        return 0;
    memcpy(status, s.ptr, s.len);
    status[s.len] = '\0';
    return 1;
}

static int load_script(const char *path, script *sc)
{
    apstream_options o;
    aps_arena arena;
    size_t i;
    char status[16];
    memset(&o, 0, sizeof o);
    o.file = path;
    o.max_record = 64u << 20;
    o.type_name = "Message";
    if (apstream_read_records(&o, APS_FORMAT_AUTO, keep_record, record_error, sc) != APSTREAM_INPUT_OK ||
        sc->count == 0) {
        fprintf(stderr, "apstream: error: %s: no events to serve\n", path);
        return -1;
    }
    aps_arena_init(&arena, NULL);
    for (i = 0; i < sc->count && !sc->framed; i++) {
        aps_arena_reset(&arena);
        sc->framed = root_lifecycle(sc->events[i], &arena, status);
    }
    aps_arena_deinit(&arena);
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

/* The capture's params.timestamp of an event, 0 when none. */
static uint64_t capture_time(const char *json, aps_arena *arena)
{
    aps_json_raw root = { json, strlen(json) }, params, ts;
    aps_json_reader r;
    uint64_t v = 0;
    if (aps_json_raw_member(root, "params", 6, arena, &params, NULL) != APS_OK ||
        aps_json_raw_member(params, "timestamp", 9, arena, &ts, NULL) != APS_OK)
        return 0;
    aps_json_raw_reader(&r, ts, arena);
    return aps_json_read_uint64(&r, &v, NULL) == APS_OK ? v : 0;
}

/* Notes the namespace and lifecycle status of an event for agent.getTree (under sv->lock). */
static void note_namespace(serve_thread *t, const char *json, aps_arena *arena)
{
    aps_json_raw root = { json, strlen(json) }, params, nsraw, data, ev;
    aps_json_reader r;
    aps_slice status, graph;
    aps_replay_meta meta;
    size_t i;
    known_ns *k = NULL;
    if (ap_event_replay_meta_text(json, root.len, NULL, arena, &meta, NULL) != APS_OK ||
        aps_json_raw_member(root, "params", 6, arena, &params, NULL) != APS_OK ||
        aps_json_raw_member(params, "namespace", 9, arena, &nsraw, NULL) != APS_OK)
        return;
    for (i = 0; i < t->nns; i++)
        if (strlen(t->ns[i].json) == nsraw.len && memcmp(t->ns[i].json, nsraw.ptr, nsraw.len) == 0)
            k = &t->ns[i];
    if (k == NULL) {
        known_ns *grown = realloc(t->ns, (t->nns + 1) * sizeof *grown);
        if (grown == NULL)
            return;
        t->ns = grown;
        k = &t->ns[t->nns];
        memset(k, 0, sizeof *k);
        if ((k->json = malloc(nsraw.len + 1)) == NULL)
            return;
        memcpy(k->json, nsraw.ptr, nsraw.len);
        k->json[nsraw.len] = '\0';
        strcpy(k->status, "running");
        t->nns++;
    }
    if (meta.channel != APS_CHANNEL_LIFECYCLE || aps_json_raw_member(params, "data", 4, arena, &data, NULL) != APS_OK)
        return;
    if (aps_json_raw_member(data, "event", 5, arena, &ev, NULL) == APS_OK) {
        aps_json_raw_reader(&r, ev, arena);
        if (aps_json_read_string(&r, &status, NULL) == APS_OK && status.len < sizeof k->status) {
            memcpy(k->status, status.ptr, status.len);
            k->status[status.len] = '\0';
        }
    }
    if (aps_json_raw_member(data, "graph_name", 10, arena, &ev, NULL) == APS_OK ||
        aps_json_raw_member(data, "graphName", 9, arena, &ev, NULL) == APS_OK) {
        aps_json_raw_reader(&r, ev, arena);
        if (aps_json_read_string(&r, &graph, NULL) == APS_OK && graph.len < sizeof k->graph) {
            memcpy(k->graph, graph.ptr, graph.len);
            k->graph[graph.len] = '\0';
        }
    }
}

/* Whether the event is an input.requested (its method, as routed). */
static int is_input_request(const char *json, aps_arena *arena)
{
    aps_json_raw root = { json, strlen(json) }, method;
    aps_json_reader r;
    aps_slice m;
    if (aps_json_raw_member(root, "method", 6, arena, &method, NULL) != APS_OK)
        return 0;
    aps_json_raw_reader(&r, method, arena);
    return aps_json_read_string(&r, &m, NULL) == APS_OK && m.len == 15 && memcmp(m.ptr, "input.requested", 15) == 0;
}

static int publish(player_args *a, const char *json, aps_arena *arena)
{
    aps_error err = APS_ERROR_INIT;
    aps_slice tid, run;
    tid.ptr = a->t->id;
    tid.len = strlen(a->t->id);
    run.ptr = a->run_id;
    run.len = strlen(a->run_id);
    pthread_mutex_lock(&a->sv->lock);
    note_namespace(a->t, json, arena);
    pthread_mutex_unlock(&a->sv->lock);
    if (ap_server_publish_json(a->sv->srv, tid, json, strlen(json), run, NULL, &err) != APS_OK) {
        fprintf(stderr, "apstream serve: %s: an event of the script was not served: %s\n", a->t->id, err.message);
        return -1;
    }
    return 0;
}

/* Waits for input.respond on the thread; 0, or -1 when the server stops. */
static int wait_for_answer(player_args *a)
{
    int rc;
    pthread_mutex_lock(&a->sv->lock);
    a->t->waiting = 1;
    a->t->answered = 0;
    while (!a->t->answered && !a->sv->stop)
        pthread_cond_wait(&a->sv->cond, &a->sv->lock);
    a->t->waiting = 0;
    rc = a->t->answered ? 0 : -1;
    pthread_mutex_unlock(&a->sv->lock);
    return rc;
}

static void *play(void *arg)
{
    player_args *a = arg;
    const script *sc = a->sc;
    aps_arena arena;
    uint64_t last_time = 0;
    size_t i;
    char status[16];
    aps_arena_init(&arena, NULL);
    if (!sc->framed)
        publish(a, "{\"type\":\"event\",\"method\":\"lifecycle\",\"params\":{\"namespace\":[],"
                   "\"data\":{\"event\":\"running\"}}}", &arena);
    for (i = 0; i < sc->count && !a->sv->stop; i++) {
        const char *ev = sc->events[i];
        uint64_t when;
        aps_arena_reset(&arena);
        when = capture_time(ev, &arena);
        if (a->sv->pace_ms > 0)
            sleep_ms((unsigned)a->sv->pace_ms);
        else if (a->sv->pace_ms < 0 && last_time != 0 && when > last_time)
            sleep_ms(when - last_time > MAX_GAP_MS ? MAX_GAP_MS : (unsigned)(when - last_time));
        if (when != 0)
            last_time = when;
        publish(a, ev, &arena);
        if (is_input_request(ev, &arena)) {
            /* the run pauses: after the root `interrupted` that ends it, when the script has one */
            aps_arena_reset(&arena);
            if (i + 1 < sc->count && root_lifecycle(sc->events[i + 1], &arena, status) &&
                strcmp(status, "interrupted") == 0)
                publish(a, sc->events[++i], &arena);
            if (wait_for_answer(a) != 0)
                break;
        }
    }
    if (!sc->framed && !a->sv->stop)
        publish(a, "{\"type\":\"event\",\"method\":\"lifecycle\",\"params\":{\"namespace\":[],"
                   "\"data\":{\"event\":\"completed\"}}}", &arena);
    aps_arena_deinit(&arena);
    pthread_mutex_lock(&a->sv->lock);
    a->t->playing = 0;
    pthread_cond_broadcast(&a->sv->cond);
    pthread_mutex_unlock(&a->sv->lock);
    free(a);
    return NULL;
}

/* ---- commands ------------------------------------------------------------------- */

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

static aps_status error_response(ap_message_t *response, const ap_command_t *cmd, ap_error_code_t code,
                                 const char *why)
{
    aps_slice m;
    m.ptr = why;
    m.len = strlen(why);
    ap_response_error(response, cmd, code, m);
    return APS_OK;
}

static aps_status start_run(serve *sv, serve_thread *t, const ap_command_t *cmd, ap_message_t *response,
                            aps_arena *arena)
{
    player_args *a;
    ap_result_data_t *r;
    char *run;
    if (t->playing)
        return error_response(response, cmd, AP_ERROR_CODE_INVALID_ARGUMENT,
                              "a run is in progress on this thread: wait for it to end");
    if (t->joinable) {
        pthread_join(t->player, NULL);
        t->joinable = 0;
    }
    if ((a = calloc(1, sizeof *a)) == NULL)
        return APS_E_NOMEM;
    a->sv = sv;
    a->t = t;
    a->sc = &sv->scripts[sv->next_script++ % sv->nscripts];
    snprintf(a->run_id, sizeof a->run_id, "run-%u", ++t->runs);
    t->playing = 1;
    if (pthread_create(&t->player, NULL, play, a) != 0) {
        t->playing = 0;
        free(a);
        return APS_E_NOMEM;
    }
    t->joinable = 1;
    r = ap_response_success(response, cmd);
    if ((run = aps_arena_alloc(arena, strlen(a->run_id) + 1)) == NULL)
        return APS_E_NOMEM;
    strcpy(run, a->run_id);
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

/* ---- the command line ---------------------------------------------------------- */

static const char serve_usage_text[] =
    "usage: apstream serve [--listen HOST:PORT] --script FILE [--script FILE]...\n"
    "                      [--pace realtime|MS|0] [--api-key KEY] [--cors ORIGINS] [--drop-after N]\n"
    "\n"
    "  --listen HOST:PORT   where to listen (default 127.0.0.1:8123; PORT 0: any free port)\n"
    "  --script FILE        a capture (JSONL or SSE) each run.start plays, the scripts in turn\n"
    "  --pace P             realtime: the capture's own gaps (at most 5 s each, the default);\n"
    "                       MS: that many milliseconds between events; 0: as fast as possible\n"
    "  --api-key KEY        require it as x-api-key or Authorization: Bearer\n"
    "  --cors ORIGINS       comma-separated origins allowed to call from a browser (* any)\n"
    "  --drop-after N       close an event stream after N events past the furthest an earlier\n"
    "                       stream of its thread got (a test knob: clients reconnect)\n"
    "\n"
    "Prints \"listening on http://HOST:PORT\" when ready; stops on SIGINT or SIGTERM.\n";

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
    for (i = 2; i < argc; i += 2) { /* every option takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(serve_usage_text, stdout);
            return 0;
        }
        if (v == NULL)
            return serve_usage("every option of serve takes a value");
        if (strcmp(a, "--listen") == 0) {
            const char *colon = strrchr(v, ':');
            if (colon == NULL || (size_t)(colon - v) >= sizeof host ||
                (port = strtoul(colon + 1, &end, 10), *end != '\0' || colon[1] == '\0') || port > 65535)
                return serve_usage("--listen takes HOST:PORT (PORT 0: any free port)");
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
                sv.pace_ms = strtol(v, &end, 10);
                if (*end != '\0' || v[0] == '\0' || sv.pace_ms < 0 || sv.pace_ms > 60000)
                    return serve_usage("--pace takes realtime, or milliseconds between events (0-60000)");
            }
        } else if (strcmp(a, "--api-key") == 0) {
            opt.api_key = v;
        } else if (strcmp(a, "--cors") == 0) {
            opt.cors_origins = v;
        } else if (strcmp(a, "--drop-after") == 0) {
            opt.drop_after = strtoull(v, &end, 10);
            if (*end != '\0' || v[0] == '\0')
                return serve_usage("--drop-after takes a count of events");
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
    printf("listening on http://%s:%u\n", host, ap_server_port(sv.srv));
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
    ap_server_stop(sv.srv);
    while ((t = sv.threads) != NULL) {
        sv.threads = t->next;
        for (k = 0; k < t->nns; k++)
            free(t->ns[k].json);
        free(t->ns);
        free(t);
    }
    for (k = 0; k < sv.nscripts; k++) {
        size_t e;
        for (e = 0; e < sv.scripts[k].count; e++)
            free(sv.scripts[k].events[e]);
        free(sv.scripts[k].events);
    }
    return 0;
}
