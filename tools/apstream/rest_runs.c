/*
 * rest_runs.c - the runs of serve's REST API (docs/rest.md): creating
 * them (one active run per thread, multitask_strategy, if_not_exists,
 * command.resume), streaming, waiting, joining and cancelling them, and
 * the classic stream of each run, mapped from the protocol events the
 * player publishes (rest_event): one run, watched either way.
 */
#include "rest_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the rest object ------------------------------------------------------------------- */

/* A name-derived id for an assistant, shaped like a UUID (the reference derives uuid5s). */
static void assistant_id(const char *graph, char *buf)
{
    uint64_t h = 1469598103934665603ULL, g = 1099511628211ULL;
    const char *p;
    for (p = graph; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    for (p = graph; *p != '\0'; p++)
        g = (g ^ (unsigned char)*p) * 14029467366897019727ULL;
    snprintf(buf, 40, "%08x-%04x-5%03x-%04x-%012llx", (unsigned)(h >> 32), (unsigned)(h >> 16) & 0xffffu,
             (unsigned)h & 0xfffu, (unsigned)(0x8000u | ((g >> 48) & 0x3fffu)),
             (unsigned long long)(g & 0xffffffffffffULL));
}

rest *rest_new(const rest_hooks *hooks, const char *const *graphs, size_t ngraphs)
{
    rest *r = calloc(1, sizeof *r);
    size_t i;
    if (r == NULL)
        return NULL;
    r->hooks = *hooks;
    r->graphs = calloc(ngraphs > 0 ? ngraphs : 1, sizeof *r->graphs);
    r->assistant_ids = calloc(ngraphs > 0 ? ngraphs : 1, sizeof *r->assistant_ids);
    if (r->graphs == NULL || r->assistant_ids == NULL) {
        rest_free(r);
        return NULL;
    }
    for (i = 0; i < ngraphs; i++) {
        size_t k;
        int dup = 0;
        for (k = 0; k < r->ngraphs; k++)
            dup |= strcmp(r->graphs[k], graphs[i]) == 0;
        if (dup)
            continue;
        snprintf(r->graphs[r->ngraphs], sizeof r->graphs[0], "%s", graphs[i]);
        assistant_id(r->graphs[r->ngraphs], r->assistant_ids[r->ngraphs]);
        r->ngraphs++;
    }
    rest_now(r->started);
    r->rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uintptr_t)r ^ ((uint64_t)getpid() << 32);
    {
        /* the time too: two processes on one machine must not make the same ids */
        char now[32];
        const char *p;
        rest_now(now);
        for (p = now; *p != '\0'; p++)
            r->rng = (r->rng ^ (unsigned char)*p) * 1099511628211ULL;
        r->rng |= 1;
    }
    pthread_mutex_init(&r->lock, NULL);
    pthread_mutex_init(&r->section, NULL);
    return r;
}

void rest_free(rest *r)
{
    if (r == NULL)
        return;
    if (r->be != NULL)
        r->be->free(r); /* (what is left in memory is forgotten below, not deleted) */
    r->be = NULL;
    while (r->threads != NULL) {
        rthread *t = r->threads;
        r->threads = t->next;
        rest_thread_free(t);
    }
    while (r->runs != NULL)
        rest_run_drop(r, r->runs);
    while (r->items != NULL) {
        ritem *it = r->items;
        r->items = it->next;
        rest_item_free(it);
    }
    free(r->graphs);
    free(r->assistant_ids);
    pthread_mutex_destroy(&r->lock);
    pthread_mutex_destroy(&r->section);
    free(r);
}

void rest_close(rest *r)
{
    rrun *run;
    pthread_mutex_lock(&r->lock);
    for (run = r->runs; run != NULL; run = run->next)
        ap_server_feed_close(run->feed);
    pthread_mutex_unlock(&r->lock);
    if (r->be != NULL)
        r->be->close(r);
}

void rest_set_server(rest *r, ap_server *srv)
{
    r->srv = srv;
}

/* ---- the classic stream ------------------------------------------------------------------ */

/* Appends a record to the run's feed. */
static void emit(rrun *run, const char *event, aps_json_writer *w, uint32_t tag)
{
    /* (a record that does not fit is lost to the stream, as a dropped event would be: the run goes on) */
    if (run->feed != NULL && aps_json_writer_status(w) == APS_OK &&
        ap_server_feed_append(run->feed, event, aps_json_writer_data(w), aps_json_writer_len(w), tag) != APS_OK)
        run->dropped++;
}

static void emit_raw(rrun *run, const char *event, aps_json_raw v, uint32_t tag)
{
    if (run->feed != NULL && ap_server_feed_append(run->feed, event, v.ptr, v.len, tag) != APS_OK)
        run->dropped++;
}

static void write_str(aps_json_writer *w, const char *key, const char *v)
{
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_string(w, v, strlen(v));
}

/* An `error` record {"error": "RunError", "message"}: how a run that fails says so on its classic stream. */
static void emit_error(rrun *run, const char *message)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    write_str(&w, "error", "RunError");
    write_str(&w, "message", message);
    aps_json_write_object_end(&w);
    emit(run, "error", &w, 0);
    aps_json_writer_deinit(&w);
}

/* Ends the run with `status` (RunStatus): its feed closed; the thread's status `tstatus`. */
static void run_end(rthread *t, rrun *run, const char *status, const char *tstatus)
{
    snprintf(run->status, sizeof run->status, "%s", status);
    rest_now(run->updated);
    if (run->feed != NULL)
        ap_server_feed_close(run->feed);
    if (t != NULL && strcmp(t->active, run->id) == 0) {
        t->active[0] = '\0';
        snprintf(t->status, sizeof t->status, "%s", tstatus);
        rest_now(t->updated);
    }
}

/* The oldest enqueued run of thread t, NULL when none. */
static rrun *next_pending(rest *r, const rthread *t)
{
    rrun *run, *best = NULL;
    if (r->be != NULL)
        r->be->load_runs(r, t->id);
    for (run = r->runs; run != NULL; run = run->next)
        if (run->pending && strcmp(run->thread, t->id) == 0 && (best == NULL || run->order < best->order))
            best = run;
    return best;
}

/*
 * The queue moves on: the oldest enqueued run of thread t becomes its
 * active run, its id and graph into id[40] and graph[64] (the caller
 * starts it). With a backend, only a run enqueued here (where its stream
 * is): another replica's starts there (rest_pending_turns). 1 when one did.
 */
static int move_queue(rest *r, rthread *t, char *id, char *graph)
{
    rrun *run = next_pending(r, t);
    if (run == NULL || run->feed == NULL)
        return 0;
    run->pending = 0;
    snprintf(run->status, sizeof run->status, "running");
    rest_now(run->updated);
    snprintf(t->active, sizeof t->active, "%s", run->id);
    snprintf(t->status, sizeof t->status, "busy");
    snprintf(id, 40, "%s", run->id);
    snprintf(graph, 64, "%s", run->graph);
    return 1;
}

void rest_pending_turns(rest *r)
{
    char ids[16][40];
    size_t n = 0, i;
    rrun *run;
    pthread_mutex_lock(&r->lock);
    for (run = r->runs; run != NULL && n < 16; run = run->next)
        if (run->feed != NULL && run->pending && !ap_server_feed_closed(run->feed, NULL))
            memcpy(ids[n++], run->id, sizeof ids[0]);
    pthread_mutex_unlock(&r->lock);
    for (i = 0; i < n; i++) {
        char thr[REST_MAX_ID + 1] = "", id[40] = "", graph[64] = "";
        rthread *t;
        pthread_mutex_lock(&r->lock);
        if ((run = rest_run_find(r, ids[i])) != NULL && run->feed != NULL) { /* (the record as it is now) */
            if (!run->pending && strcmp(run->status, "pending") != 0 && strcmp(run->status, "running") != 0)
                ap_server_feed_close(run->feed); /* cancelled elsewhere: its stream here ends */
            else if (run->pending && (t = rest_thread_find(r, run->thread)) != NULL && t->active[0] == '\0' &&
                     next_pending(r, t) == run && move_queue(r, t, id, graph))
                snprintf(thr, sizeof thr, "%s", t->id);
        }
        pthread_mutex_unlock(&r->lock);
        if (thr[0] == '\0')
            continue;
        if (r->be->commit(r) != 0)
            return; /* (nothing starts that is not written) */
        if (r->hooks.start(r->hooks.user, thr, id, graph, 0, NULL) != 0) {
            pthread_mutex_lock(&r->lock);
            if ((t = rest_thread_find(r, thr)) != NULL && (run = rest_run_find(r, id)) != NULL)
                run_end(t, run, "error", "error");
            pthread_mutex_unlock(&r->lock);
        }
    }
}

int rest_has_pending(rest *r)
{
    rrun *run;
    int any = 0;
    pthread_mutex_lock(&r->lock);
    for (run = r->runs; run != NULL && !any; run = run->next)
        any = run->feed != NULL && run->pending && !ap_server_feed_closed(run->feed, NULL);
    pthread_mutex_unlock(&r->lock);
    return any;
}

/* The metadata of a messages event: the node and namespace the message came from. */
static void message_metadata(const rthread *t, const rrun *run, aps_json_writer *w)
{
    aps_json_write_object_begin(w);
    write_str(w, "thread_id", t->id);
    write_str(w, "run_id", run->id);
    write_str(w, "assistant_id", run->assistant);
    write_str(w, "graph_id", t->graph[0] ? t->graph : "agent");
    write_str(w, "langgraph_node", run->msg_node[0] ? run->msg_node : "agent");
    write_str(w, "langgraph_checkpoint_ns", run->msg_ns != NULL ? run->msg_ns : "");
    aps_json_write_object_end(w);
}

static int grow_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = (*len + n + 1) * 2;
        char *g = realloc(*buf, c);
        if (g == NULL)
            return -1;
        *buf = g;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

/* What an AI message written by ai_message holds. */
typedef enum ai_form {
    AI_CHUNK,    /* messages-tuple: this piece of the text and of the arguments (`tool_call_chunks`) */
    AI_PARTIAL,  /* messages/partial: the whole message so far, its call in both members */
    AI_COMPLETE  /* messages/complete: the whole message; no `tool_call_chunks`, as the reference */
} ai_form;

/*
 * An AI message as the reference server streams it: `content` the text,
 * `tool_call_chunks` (AI_CHUNK: this piece of the arguments) and
 * `tool_calls` (the whole call so far).
 */
static void ai_message(const rrun *run, const char *text, size_t len, ai_form form, const char *args, size_t alen,
                       aps_json_writer *w)
{
    aps_json_write_object_begin(w);
    aps_json_write_key(w, "content", 7);
    aps_json_write_string(w, text, len);
    aps_json_write_key(w, "additional_kwargs", 17);
    aps_json_write_object_begin(w);
    aps_json_write_object_end(w);
    aps_json_write_key(w, "response_metadata", 17);
    aps_json_write_object_begin(w);
    aps_json_write_object_end(w);
    if (form != AI_COMPLETE) {
        aps_json_write_key(w, "tool_call_chunks", 16);
        aps_json_write_array_begin(w);
        if (run->tool_id[0] != '\0' && (form == AI_CHUNK || args != NULL)) {
            aps_json_write_object_begin(w);
            aps_json_write_key(w, "index", 5);
            aps_json_write_uint64(w, 0);
            write_str(w, "type", "tool_call_chunk");
            write_str(w, "id", run->tool_id);
            write_str(w, "name", run->tool_name);
            aps_json_write_key(w, "args", 4);
            aps_json_write_string(w, args != NULL ? args : "", args != NULL ? alen : 0);
            aps_json_write_object_end(w);
        }
        aps_json_write_array_end(w);
    }
    aps_json_write_key(w, "tool_calls", 10);
    aps_json_write_array_begin(w);
    if (run->tool_id[0] != '\0' && form != AI_CHUNK) {
        aps_json_raw parsed;
        aps_json_write_object_begin(w);
        write_str(w, "name", run->tool_name);
        aps_json_write_key(w, "args", 4);
        parsed.ptr = run->tool_args != NULL && run->tool_len > 0 ? run->tool_args : "{}";
        parsed.len = strlen(parsed.ptr);
        if (aps_json_validate(parsed.ptr, parsed.len, NULL, NULL) == APS_OK && aps_json_raw_kind(parsed) == APS_JSON_OBJECT)
            aps_json_write_raw(w, parsed);
        else
            aps_json_write_raw(w, (aps_json_raw){ "{}", 2 });
        write_str(w, "id", run->tool_id);
        write_str(w, "type", "tool_call");
        aps_json_write_object_end(w);
    }
    aps_json_write_array_end(w);
    aps_json_write_key(w, "invalid_tool_calls", 18);
    aps_json_write_array_begin(w);
    aps_json_write_array_end(w);
    write_str(w, "id", run->msg_id);
    write_str(w, "type", "ai");
    aps_json_write_object_end(w);
}

/* messages-tuple: [chunk, metadata] as `messages`. */
static void emit_tuple(const rthread *t, rrun *run, const char *text, size_t len, const char *args, size_t alen,
                       uint32_t sub)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    ai_message(run, text, len, AI_CHUNK, args, alen, &w);
    message_metadata(t, run, &w);
    aps_json_write_array_end(&w);
    emit(run, "messages", &w, M_TUPLE | sub);
    aps_json_writer_deinit(&w);
}

/* messages: the whole message so far as messages/partial (or /complete). */
static void emit_whole(rrun *run, const char *event, uint32_t sub)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    ai_message(run, run->text != NULL ? run->text : "", run->text_len,
               strcmp(event, "messages/complete") == 0 ? AI_COMPLETE : AI_PARTIAL, run->tool_args, run->tool_len, &w);
    aps_json_write_array_end(&w);
    emit(run, event, &w, M_MESSAGES | sub);
    aps_json_writer_deinit(&w);
}

void rest_member_str(aps_json_raw obj, const char *name, aps_arena *a, char *buf, size_t cap)
{
    aps_json_raw v;
    aps_json_reader rd;
    aps_slice s;
    buf[0] = '\0';
    if (aps_json_raw_member(obj, name, strlen(name), a, &v, NULL) != APS_OK)
        return;
    aps_json_raw_reader(&rd, v, a);
    if (aps_json_read_string(&rd, &s, NULL) == APS_OK && s.len < cap) {
        memcpy(buf, s.ptr, s.len);
        buf[s.len] = '\0';
    }
}

/* A `messages` protocol event: the message deltas, as both message modes. */
static void map_message(const rthread *t, rrun *run, aps_json_raw data, const char *node, const char *ns,
                        uint32_t sub, aps_arena *a)
{
    char event[32], type[32];
    aps_json_raw part;
    rest_member_str(data, "event", a, event, sizeof event);
    if (strcmp(event, "message-start") == 0) {
        aps_json_writer w;
        rest_member_str(data, "id", a, run->msg_id, sizeof run->msg_id);
        if (run->msg_id[0] == '\0')
            snprintf(run->msg_id, sizeof run->msg_id, "run-%s", run->id);
        snprintf(run->msg_node, sizeof run->msg_node, "%s", node);
        free(run->msg_ns);
        run->msg_ns = rest_strndup(ns, strlen(ns));
        run->text_len = run->tool_len = 0;
        run->tool_id[0] = run->tool_name[0] = '\0';
        aps_json_writer_init(&w, NULL);
        aps_json_write_object_begin(&w);
        aps_json_write_key(&w, run->msg_id, strlen(run->msg_id));
        aps_json_write_object_begin(&w);
        aps_json_write_key(&w, "metadata", 8);
        message_metadata(t, run, &w);
        aps_json_write_object_end(&w);
        aps_json_write_object_end(&w);
        emit(run, "messages/metadata", &w, M_MESSAGES | sub);
        aps_json_writer_deinit(&w);
    } else if (strcmp(event, "content-block-start") == 0 &&
               aps_json_raw_member(data, "content", 7, a, &part, NULL) == APS_OK) {
        rest_member_str(part, "type", a, type, sizeof type);
        if (strcmp(type, "tool_call_chunk") == 0 || strcmp(type, "tool_call") == 0) {
            rest_member_str(part, "id", a, run->tool_id, sizeof run->tool_id);
            rest_member_str(part, "name", a, run->tool_name, sizeof run->tool_name);
            run->tool_len = 0;
            emit_tuple(t, run, "", 0, "", 0, sub);
        }
    } else if (strcmp(event, "content-block-delta") == 0 &&
               aps_json_raw_member(data, "delta", 5, a, &part, NULL) == APS_OK) {
        aps_json_raw piece;
        aps_json_reader rd;
        aps_slice s;
        rest_member_str(part, "type", a, type, sizeof type);
        if (strcmp(type, "text-delta") == 0 && aps_json_raw_member(part, "text", 4, a, &piece, NULL) == APS_OK) {
            aps_json_raw_reader(&rd, piece, a);
            if (aps_json_read_string(&rd, &s, NULL) != APS_OK ||
                grow_append(&run->text, &run->text_len, &run->text_cap, s.ptr, s.len) != 0)
                return;
            emit_tuple(t, run, s.ptr, s.len, NULL, 0, sub);
            emit_whole(run, "messages/partial", sub);
        } else if (strcmp(type, "tool-call-delta") == 0 &&
                   aps_json_raw_member(part, "args", 4, a, &piece, NULL) == APS_OK) {
            aps_json_raw_reader(&rd, piece, a);
            if (aps_json_read_string(&rd, &s, NULL) != APS_OK ||
                grow_append(&run->tool_args, &run->tool_len, &run->tool_cap, s.ptr, s.len) != 0)
                return;
            emit_tuple(t, run, "", 0, s.ptr, s.len, sub);
            emit_whole(run, "messages/partial", sub);
        }
    } else if (strcmp(event, "message-finish") == 0) {
        emit_whole(run, "messages/complete", sub);
    }
}

/* The name of tool call `id` as its tool-started said ("" when not seen). */
static const char *tool_name(const rrun *run, const char *id)
{
    unsigned i;
    for (i = 0; i < run->ntools && i < 16; i++)
        if (strcmp(run->tools[i].id, id) == 0)
            return run->tools[i].name;
    return "";
}

/*
 * A tool's progress as the reference server's `tools` mode writes it:
 * {"event": "on_tool_start" | "on_tool_end" | "on_tool_error", toolCallId,
 * name, input | output | error}. The protocol's fields in either spelling.
 */
static void tool_event(rrun *run, const char *event, aps_json_raw data, aps_arena *a)
{
    char id[128], name[128];
    aps_json_raw v;
    aps_json_writer w;
    const char *kind = strcmp(event, "tool-started") == 0    ? "on_tool_start"
                       : strcmp(event, "tool-finished") == 0 ? "on_tool_end"
                       : strcmp(event, "tool-error") == 0    ? "on_tool_error"
                                                             : NULL;
    if (kind == NULL)
        return; /* (tool-output-delta: the reference's tools mode has nothing for it) */
    rest_member_str(data, "toolCallId", a, id, sizeof id);
    if (id[0] == '\0')
        rest_member_str(data, "tool_call_id", a, id, sizeof id);
    rest_member_str(data, "toolName", a, name, sizeof name);
    if (name[0] == '\0')
        rest_member_str(data, "tool_name", a, name, sizeof name);
    if (strcmp(kind, "on_tool_start") == 0) {
        unsigned k = run->ntools++ % 16;
        snprintf(run->tools[k].id, sizeof run->tools[k].id, "%s", id);
        snprintf(run->tools[k].name, sizeof run->tools[k].name, "%s", name);
    } else if (name[0] == '\0') {
        snprintf(name, sizeof name, "%s", tool_name(run, id));
    }
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    write_str(&w, "event", kind);
    write_str(&w, "toolCallId", id);
    write_str(&w, "name", name);
    if (strcmp(kind, "on_tool_start") == 0 && aps_json_raw_member(data, "input", 5, a, &v, NULL) == APS_OK) {
        aps_json_write_key(&w, "input", 5);
        aps_json_write_raw(&w, v);
    } else if (strcmp(kind, "on_tool_end") == 0 && aps_json_raw_member(data, "output", 6, a, &v, NULL) == APS_OK) {
        aps_json_write_key(&w, "output", 6);
        aps_json_write_raw(&w, v);
    } else if (strcmp(kind, "on_tool_error") == 0 && aps_json_raw_member(data, "message", 7, a, &v, NULL) == APS_OK) {
        aps_json_write_key(&w, "error", 5);
        aps_json_write_raw(&w, v);
    }
    aps_json_write_object_end(&w);
    emit(run, "tools", &w, M_TOOLS);
    aps_json_writer_deinit(&w);
}

/* A tool's progress (`tools`) and its result, a ToolMessage: as a messages tuple and as messages/complete. */
static void map_tool(const rthread *t, rrun *run, aps_json_raw data, uint32_t sub, aps_arena *a)
{
    char event[32];
    aps_json_raw output;
    aps_json_writer w;
    rest_member_str(data, "event", a, event, sizeof event);
    tool_event(run, event, data, a);
    if (strcmp(event, "tool-finished") != 0 || aps_json_raw_member(data, "output", 6, a, &output, NULL) != APS_OK ||
        aps_json_raw_kind(output) != APS_JSON_OBJECT)
        return;
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    aps_json_write_raw(&w, output);
    message_metadata(t, run, &w);
    aps_json_write_array_end(&w);
    emit(run, "messages", &w, M_TUPLE | sub);
    aps_json_writer_reset(&w);
    aps_json_write_array_begin(&w);
    aps_json_write_raw(&w, output);
    aps_json_write_array_end(&w);
    emit(run, "messages/complete", &w, M_MESSAGES | sub);
    aps_json_writer_deinit(&w);
}

/* debug: {step, type, timestamp, payload}. */
static void emit_debug(const rthread *t, rrun *run, const char *type, aps_json_raw payload)
{
    aps_json_writer w;
    char now[32];
    rest_now(now);
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "step", 4);
    aps_json_write_int64(&w, t->step);
    write_str(&w, "type", type);
    write_str(&w, "timestamp", now);
    aps_json_write_key(&w, "payload", 7);
    aps_json_write_raw(&w, payload);
    aps_json_write_object_end(&w);
    emit(run, "debug", &w, M_DEBUG);
    aps_json_writer_deinit(&w);
}

/* A root checkpoint: checkpoints (and debug) as the reference writes them, with the thread's values. */
static void map_checkpoint(rthread *t, rrun *run, aps_json_raw data, aps_arena *a)
{
    char id[40], parent[40], source[16];
    aps_json_raw step;
    aps_json_writer w;
    aps_json_reader rd;
    int64_t n;
    rest_member_str(data, "id", a, id, sizeof id);
    rest_member_str(data, "parent_id", a, parent, sizeof parent);
    rest_member_str(data, "source", a, source, sizeof source);
    if (aps_json_raw_member(data, "step", 4, a, &step, NULL) == APS_OK) {
        aps_json_raw_reader(&rd, step, a);
        if (aps_json_read_int64(&rd, &n, NULL) == APS_OK)
            t->step = n;
    }
    if (id[0] != '\0')
        snprintf(t->checkpoint, sizeof t->checkpoint, "%s", id);
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "values", 6);
    aps_json_write_raw(&w, (aps_json_raw){ t->values != NULL ? t->values : "{}", t->values != NULL ? strlen(t->values) : 2 });
    aps_json_write_key(&w, "metadata", 8);
    rest_step_metadata(&w, source[0] ? source : "loop", t->step);
    aps_json_write_key(&w, "next", 4);
    aps_json_write_array_begin(&w);
    aps_json_write_array_end(&w);
    aps_json_write_key(&w, "config", 6);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "configurable", 12);
    aps_json_write_object_begin(&w);
    write_str(&w, "thread_id", t->id);
    write_str(&w, "checkpoint_ns", "");
    write_str(&w, "checkpoint_id", t->checkpoint);
    aps_json_write_object_end(&w);
    aps_json_write_object_end(&w);
    aps_json_write_key(&w, "parent_config", 13);
    if (parent[0] != '\0') {
        aps_json_write_object_begin(&w);
        aps_json_write_key(&w, "configurable", 12);
        aps_json_write_object_begin(&w);
        write_str(&w, "thread_id", t->id);
        write_str(&w, "checkpoint_ns", "");
        write_str(&w, "checkpoint_id", parent);
        aps_json_write_object_end(&w);
        aps_json_write_object_end(&w);
    } else {
        aps_json_write_null(&w);
    }
    aps_json_write_key(&w, "tasks", 5);
    aps_json_write_array_begin(&w);
    aps_json_write_array_end(&w);
    aps_json_write_object_end(&w);
    emit(run, "checkpoints", &w, M_CHECKPOINTS);
    if (aps_json_writer_status(&w) == APS_OK)
        emit_debug(t, run, "checkpoint", (aps_json_raw){ aps_json_writer_data(&w), aps_json_writer_len(&w) });
    aps_json_writer_deinit(&w);
}

/*
 * The run pauses on an interrupt: `__interrupt__` as updates and values
 * (what the reference server sends), the thread interrupted, the run over
 * (a `command.resume` run continues it).
 */
static void map_interrupt(rthread *t, rrun *run, aps_json_raw data, const char *node, aps_arena *a)
{
    char id[128];
    aps_json_raw payload;
    aps_json_writer list, w;
    if (aps_json_raw_member(data, "payload", 7, a, &payload, NULL) != APS_OK)
        payload = (aps_json_raw){ "null", 4 };
    rest_member_str(data, "interrupt_id", a, id, sizeof id);
    aps_json_writer_init(&list, NULL);
    aps_json_write_array_begin(&list);
    aps_json_write_object_begin(&list);
    write_str(&list, "id", id);
    aps_json_write_key(&list, "value", 5);
    aps_json_write_raw(&list, payload);
    aps_json_write_object_end(&list);
    aps_json_write_array_end(&list);
    if (aps_json_writer_status(&list) == APS_OK) {
        aps_json_raw l = { aps_json_writer_data(&list), aps_json_writer_len(&list) };
        free(t->interrupts);
        t->interrupts = rest_strndup(l.ptr, l.len);
        snprintf(t->interrupt_node, sizeof t->interrupt_node, "%s", node[0] ? node : (t->graph[0] ? t->graph : "agent"));
        aps_json_writer_init(&w, NULL);
        aps_json_write_object_begin(&w);
        aps_json_write_key(&w, "__interrupt__", 13);
        aps_json_write_raw(&w, l);
        aps_json_write_object_end(&w);
        emit(run, "updates", &w, M_UPDATES);
        emit(run, "values", &w, M_VALUES);
        aps_json_writer_deinit(&w);
    }
    aps_json_writer_deinit(&list);
    /* (the run ends when the player pauses: rest_paused) */
}

/*
 * Run `run_id` could not record its progress (the records unreachable past
 * the retries): it ends as an `error` on its classic stream here, its
 * player stops, and its records say so at the next section that reaches
 * them (rest_drain_external).
 */
static void run_failed(rest *r, const char *thread_id, const char *run_id)
{
    rrun *run;
    int stop = 0;
    pthread_mutex_lock(&r->lock);
    for (run = r->runs; run != NULL; run = run->next) /* (this process's copy: no backend read) */
        if (strcmp(run->id, run_id) == 0 && run->feed != NULL && !ap_server_feed_closed(run->feed, NULL)) {
            emit_error(run, "the run's records are unreachable (Redis): the run stops");
            run_end(NULL, run, "error", "error");
            stop = 1;
        }
    if (stop) {
        size_t k = r->next_ext++ % (sizeof r->ext / sizeof r->ext[0]);
        r->ext[k].kind = 'f';
        snprintf(r->ext[k].thread, sizeof r->ext[k].thread, "%s", thread_id);
        snprintf(r->ext[k].run, sizeof r->ext[k].run, "%s", run_id);
    }
    pthread_mutex_unlock(&r->lock);
    if (stop && r->hooks.cancel != NULL)
        r->hooks.cancel(r->hooks.user, thread_id);
}

static void paused(rest *r, const char *thread_id, const char *run_id);

void rest_paused(rest *r, const char *thread_id, const char *run_id)
{
    if (rest_begin(r, 1) != 0) {
        run_failed(r, thread_id, run_id);
        return;
    }
    paused(r, thread_id, run_id);
    if (rest_end(r) != 0)
        run_failed(r, thread_id, run_id);
}

static void paused(rest *r, const char *thread_id, const char *run_id)
{
    rthread *t;
    rrun *run;
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, thread_id)) != NULL && (run = rest_run_find(r, run_id)) != NULL &&
        strcmp(t->active, run->id) == 0)
        /* the reference server reports a run that paused on an interrupt as a success */
        run_end(t, run, "success", "interrupted");
    pthread_mutex_unlock(&r->lock);
}

/* The event name of a subgraph's event: `mode|ns1|ns2`. */
static void sub_event(char *buf, size_t cap, const char *mode, const char *ns)
{
    snprintf(buf, cap, "%s|%s", mode, ns);
}

static void event(rest *r, const char *thread_id, const char *run_id, const char *json, size_t len);

void rest_event(rest *r, const char *thread_id, const char *run_id, const char *json, size_t len)
{
    if (rest_begin(r, 1) != 0) {
        run_failed(r, thread_id, run_id);
        return;
    }
    event(r, thread_id, run_id, json, len);
    if (rest_end(r) != 0)
        run_failed(r, thread_id, run_id);
}

static void event(rest *r, const char *thread_id, const char *run_id, const char *json, size_t len)
{
    aps_arena a;
    aps_json_raw root = { json, len }, params, data, nsraw;
    aa_store_namespace_t ns;
    char method[32], node[64] = "", nsj[512] = "", name[600], start_id[40] = "", start_graph[64] = "";
    rthread *t;
    rrun *run;
    uint32_t sub;
    size_t i;
    int start_next = 0;
    aps_arena_init(&a, NULL);
    rest_member_str(root, "method", &a, method, sizeof method);
    if (aps_json_raw_member(root, "params", 6, &a, &params, NULL) != APS_OK ||
        aps_json_raw_member(params, "namespace", 9, &a, &nsraw, NULL) != APS_OK ||
        aa_store_namespace_decode(nsraw.ptr, nsraw.len, &a, &ns, NULL) != APS_OK) {
        aps_arena_deinit(&a);
        return;
    }
    if (aps_json_raw_member(params, "data", 4, &a, &data, NULL) != APS_OK)
        data = (aps_json_raw){ "null", 4 };
    rest_member_str(params, "node", &a, node, sizeof node);
    for (i = 0; i < ns.count; i++) {
        size_t used = strlen(nsj);
        snprintf(nsj + used, sizeof nsj - used, "%s%.*s", i > 0 ? "|" : "", (int)ns.items[i].len, ns.items[i].ptr);
    }
    if (ns.count > 0 && node[0] == '\0') {
        /* a node's namespace segment is "name:task-id" */
        const aps_slice *last = &ns.items[ns.count - 1];
        const char *colon = memchr(last->ptr, ':', last->len);
        size_t n = colon != NULL ? (size_t)(colon - last->ptr) : last->len;
        snprintf(node, sizeof node, "%.*s", (int)(n < sizeof node ? n : sizeof node - 1), last->ptr);
    }
    sub = ns.count > 0 ? M_SUBGRAPHS : 0;
    pthread_mutex_lock(&r->lock);
    t = rest_thread_find(r, thread_id);
    run = t != NULL && t->active[0] != '\0' ? rest_run_find(r, t->active) : NULL;
    if (run == NULL || strcmp(run->id, run_id) != 0) {
        /* not the thread's run any more (cancelled, interrupted: maybe by another replica, whose
         * record says so): its classic stream here ends */
        if ((run = rest_run_find(r, run_id)) != NULL && run->feed != NULL && strcmp(run->status, "running") != 0 &&
            strcmp(run->status, "pending") != 0)
            ap_server_feed_close(run->feed);
        pthread_mutex_unlock(&r->lock);
        aps_arena_deinit(&a);
        return;
    }
    if (strcmp(method, "values") == 0) {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        rest_classic_values(data, &w);
        if (aps_json_writer_status(&w) == APS_OK) {
            aps_json_raw classic = { aps_json_writer_data(&w), aps_json_writer_len(&w) };
            if (ns.count == 0) {
                rest_thread_push_state(r, t, classic.ptr, classic.len, run);
                emit_raw(run, "values", classic, M_VALUES);
            } else {
                sub_event(name, sizeof name, "values", nsj);
                emit_raw(run, name, classic, M_VALUES | sub);
            }
        }
        aps_json_writer_deinit(&w);
    } else if (strcmp(method, "updates") == 0) {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        aps_json_write_object_begin(&w);
        aps_json_write_key(&w, node[0] ? node : "agent", strlen(node[0] ? node : "agent"));
        rest_classic_values(data, &w);
        aps_json_write_object_end(&w);
        if (ns.count == 0) {
            emit(run, "updates", &w, M_UPDATES);
        } else {
            sub_event(name, sizeof name, "updates", nsj);
            emit(run, name, &w, M_UPDATES | sub);
        }
        aps_json_writer_deinit(&w);
    } else if (strcmp(method, "messages") == 0) {
        map_message(t, run, data, node, nsj, 0, &a);
    } else if (strcmp(method, "tools") == 0) {
        map_tool(t, run, data, 0, &a);
    } else if (strcmp(method, "custom") == 0) {
        emit_raw(run, "custom", data, M_CUSTOM);
    } else if (strcmp(method, "tasks") == 0 && ns.count == 0) {
        aps_json_raw result;
        emit_raw(run, "tasks", data, M_TASKS);
        emit_debug(t, run, aps_json_raw_member(data, "result", 6, &a, &result, NULL) == APS_OK ? "task_result" : "task",
                   data);
    } else if (strcmp(method, "checkpoints") == 0 && ns.count == 0) {
        map_checkpoint(t, run, data, &a);
    } else if (strcmp(method, "input.requested") == 0) {
        map_interrupt(t, run, data, node, &a);
    } else if (strcmp(method, "lifecycle") == 0 && ns.count == 0) {
        char event[32], graph[64];
        rest_member_str(data, "event", &a, event, sizeof event);
        rest_member_str(data, "graph_name", &a, graph, sizeof graph);
        if (graph[0] != '\0')
            snprintf(t->graph, sizeof t->graph, "%s", graph);
        if (strcmp(event, "completed") == 0) {
            run_end(t, run, "success", "idle");
            start_next = 1;
        } else if (strcmp(event, "failed") == 0) {
            char why[256];
            rest_member_str(data, "error", &a, why, sizeof why);
            emit_error(run, why[0] ? why : "the run failed");
            run_end(t, run, "error", "error");
            start_next = 1;
        } else if (strcmp(event, "interrupted") == 0 && t->interrupts == NULL) {
            /* (one that pauses on input ends when the player pauses: rest_paused) */
            run_end(t, run, "interrupted", "idle");
        }
    }
    if (start_next)
        (void)move_queue(r, t, start_id, start_graph);
    pthread_mutex_unlock(&r->lock);
    aps_arena_deinit(&a);
    if (start_id[0] != '\0' && r->hooks.start(r->hooks.user, thread_id, start_id, start_graph, 0, NULL) != 0) {
        pthread_mutex_lock(&r->lock);
        if ((t = rest_thread_find(r, thread_id)) != NULL && (run = rest_run_find(r, start_id)) != NULL)
            run_end(t, run, "error", "error");
        pthread_mutex_unlock(&r->lock);
    }
}

/*
 * Forgets the oldest run that has ended (its stream can no longer be
 * joined): a long-lived serve keeps REST_MAX_RUNS of them, not every one.
 */
static void forget_oldest_run(rest *r)
{
    rrun *run, *oldest = NULL;
    for (run = r->runs; run != NULL; run = run->next)
        if (!run->pending && strcmp(run->status, "running") != 0 && strcmp(run->status, "pending") != 0 &&
            (oldest == NULL || run->order < oldest->order))
            oldest = run;
    if (oldest != NULL) {
        rthread *t = rest_thread_find(r, oldest->thread);
        if (t == NULL || strcmp(t->active, oldest->id) != 0) /* (a run paused on input stays) */
            rest_run_drop(r, oldest); /* (a backend keeps its record) */
    }
}

/* A new run record of thread t (under the lock), with its feed and its `metadata` event. */
static rrun *run_add(rest *r, rthread *t, const char *assistant, const char *multitask, uint32_t modes)
{
    rrun *run = calloc(1, sizeof *run);
    aps_json_writer w;
    if (run == NULL)
        return NULL;
    rest_uuid(r, run->id);
    snprintf(run->thread, sizeof run->thread, "%s", t->id);
    snprintf(run->assistant, sizeof run->assistant, "%s", assistant);
    snprintf(run->multitask, sizeof run->multitask, "%s", multitask);
    strcpy(run->status, "pending");
    rest_now(run->created);
    strcpy(run->updated, run->created);
    run->modes = modes;
    run->order = rest_next_order(r);
    run->touched = 1;
    if ((run->feed = ap_server_feed_new(r->srv)) == NULL) {
        free(run);
        return NULL;
    }
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    write_str(&w, "run_id", run->id);
    aps_json_write_key(&w, "attempt", 7);
    aps_json_write_uint64(&w, 1);
    aps_json_write_object_end(&w);
    emit(run, "metadata", &w, 0);
    aps_json_writer_deinit(&w);
    run->next = r->runs;
    r->runs = run;
    if (++r->nruns > REST_MAX_RUNS)
        forget_oldest_run(r);
    return run;
}

static void external_run(rest *r, const char *thread_id, const char *run_id);

void rest_external_run(rest *r, const char *thread_id, const char *run_id)
{
    if (r->be != NULL) {
        /* (called under serve's lock, which a section may wait for: the next section records it) */
        size_t k;
        pthread_mutex_lock(&r->lock);
        k = r->next_ext++ % (sizeof r->ext / sizeof r->ext[0]);
        r->ext[k].kind = 'x';
        snprintf(r->ext[k].thread, sizeof r->ext[k].thread, "%s", thread_id);
        snprintf(r->ext[k].run, sizeof r->ext[k].run, "%s", run_id);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    external_run(r, thread_id, run_id);
}

void rest_drain_external(rest *r)
{
    size_t i, n = sizeof r->ext / sizeof r->ext[0];
    for (i = 0; i < n; i++) {
        char kind, thread[REST_MAX_ID + 1], run_id[64];
        rthread *t;
        rrun *run;
        pthread_mutex_lock(&r->lock);
        kind = r->ext[i].kind;
        r->ext[i].kind = '\0';
        memcpy(thread, r->ext[i].thread, sizeof thread);
        memcpy(run_id, r->ext[i].run, sizeof run_id);
        if (kind == 'f' && (run = rest_run_find(r, run_id)) != NULL) {
            /* a run that failed while its records were unreachable: they say so now */
            if (strcmp(run->status, "running") == 0 || strcmp(run->status, "pending") == 0) {
                strcpy(run->status, "error");
                rest_now(run->updated);
            }
            if ((t = rest_thread_find(r, thread)) != NULL && strcmp(t->active, run_id) == 0) {
                t->active[0] = '\0';
                strcpy(t->status, "error");
                rest_now(t->updated);
            }
        }
        pthread_mutex_unlock(&r->lock);
        if (kind == 'x')
            external_run(r, thread, run_id);
    }
}

static void external_run(rest *r, const char *thread_id, const char *run_id)
{
    rthread *t;
    rrun *run;
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, thread_id)) == NULL)
        t = rest_thread_add(r, thread_id, NULL, 0);
    if (t != NULL && (run = run_add(r, t, r->ngraphs > 0 ? r->assistant_ids[0] : "agent", "reject", ~0u)) != NULL) {
        /* the player names its run: the REST record takes that name */
        snprintf(run->id, sizeof run->id, "%s", run_id);
        strcpy(run->status, "running");
        snprintf(t->active, sizeof t->active, "%s", run->id);
        strcpy(t->status, "busy");
        free(t->interrupts);
        t->interrupts = NULL;
    }
    pthread_mutex_unlock(&r->lock);
}

/* ---- the routes ---------------------------------------------------------------------------- */

/* The modes a RunCreate asks for (values by default); 0 after a refusal (the reply is the 422). */
static uint32_t stream_modes(const aa_run_create_t *q, int subgraphs, ap_server_reply *reply)
{
    static const uint32_t bits[] = { 0, M_VALUES, M_UPDATES, M_MESSAGES, M_TUPLE, M_CUSTOM, M_TASKS,
                                     M_CHECKPOINTS, M_DEBUG, M_EVENTS, M_TOOLS }; /* (AA_STREAM_MODE_* order) */
    uint32_t m = 0;
    size_t i;
    if (!q->has_stream_mode)
        m = M_VALUES;
    else if (q->stream_mode.kind == AA_RUN_CREATE_STREAM_MODE_STREAM_MODE)
        m = bits[q->stream_mode.u.stream_mode];
    else if (q->stream_mode.kind == AA_RUN_CREATE_STREAM_MODE_ARRAY)
        for (i = 0; i < q->stream_mode.u.array.count; i++)
            m |= bits[q->stream_mode.u.array.items[i]];
    if (q->has_stream_mode && q->stream_mode.kind == AA_RUN_CREATE_STREAM_MODE_UNKNOWN) {
        rest_error(reply, 422, "/stream_mode", "stream_mode is a StreamMode or an array of them");
        return 0;
    }
    if (m == 0)
        m = M_VALUES;
    return m | (subgraphs ? M_SUBGRAPHS : 0);
}

/* The modes of a join's ?stream_mode= (several: repeated), `dflt` without one. */
static uint32_t query_modes(const ap_server_request *req, uint32_t dflt)
{
    static const char *const names[] = { "values", "updates", "messages", "messages-tuple", "custom",
                                         "tasks", "checkpoints", "debug", "events", "tools" };
    static const uint32_t bits[] = { M_VALUES, M_UPDATES, M_MESSAGES, M_TUPLE, M_CUSTOM, M_TASKS,
                                     M_CHECKPOINTS, M_DEBUG, M_EVENTS, M_TOOLS };
    uint32_t m = 0;
    const char *p = req->query;
    size_t i;
    while (p != NULL && *p != '\0') {
        const char *e = strchr(p, '&');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        if (len > 12 && strncmp(p, "stream_mode=", 12) == 0)
            for (i = 0; i < sizeof names / sizeof *names; i++)
                if (len - 12 == strlen(names[i]) && memcmp(p + 12, names[i], len - 12) == 0)
                    m |= bits[i];
        p = e != NULL ? e + 1 : NULL;
    }
    return m != 0 ? m | (dflt & M_SUBGRAPHS) : dflt;
}

typedef enum run_kind { RUN_BACKGROUND, RUN_STREAM, RUN_WAIT } run_kind;

/* The raw text of member `name` of the body, or `dflt`. */
static aps_json_raw body_raw(const ap_server_request *req, const char *name, aps_arena *a, const char *dflt)
{
    aps_json_raw body = { req->body, req->body_len }, v;
    if (req->body_len > 0 && aps_json_raw_member(body, name, strlen(name), a, &v, NULL) == APS_OK)
        return v;
    v.ptr = dflt;
    v.len = strlen(dflt);
    return v;
}

/* Writes member `name` with the raw JSON `v`. */
static void write_member(aps_json_writer *w, const char *name, aps_json_raw v)
{
    aps_json_write_key(w, name, strlen(name));
    aps_json_write_raw(w, v);
}

/*
 * The run's metadata and kwargs as the reference server keeps them: the
 * metadata is the thread's (which names the graph) with `created_by` and
 * the request's own on top; the kwargs hold what was asked, its config
 * with the ids of the run in `configurable` and the metadata beside.
 * 0, or -1 out of memory (the run keeps what it had).
 */
static int run_record(rrun *run, const rthread *t, const ap_server_request *req, aps_arena *a)
{
    static const char created_by[] = "{\"created_by\":\"system\"}";
    char *metadata = rest_strndup(created_by, sizeof created_by - 1), *configurable = NULL;
    aps_json_raw config = body_raw(req, "config", a, "{}"), v, command;
    aps_json_writer w;
    aps_json_reader rd;
    aps_slice key;
    int more = 0, ok;
    if (metadata == NULL ||
        (t->metadata != NULL && rest_merge_object(&metadata, (aps_json_raw){ t->metadata, strlen(t->metadata) }) != 0) ||
        (run->metadata != NULL && rest_merge_object(&metadata, (aps_json_raw){ run->metadata, strlen(run->metadata) }) != 0)) {
        free(metadata);
        return -1;
    }
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    write_str(&w, "thread_id", t->id);
    write_str(&w, "run_id", run->id);
    write_str(&w, "graph_id", run->graph);
    write_str(&w, "assistant_id", run->assistant);
    aps_json_write_object_end(&w);
    ok = aps_json_writer_status(&w) == APS_OK &&
         (configurable = rest_strndup(aps_json_writer_data(&w), aps_json_writer_len(&w))) != NULL;
    aps_json_writer_reset(&w);
    if (ok && aps_json_raw_member(config, "configurable", 12, a, &v, NULL) == APS_OK &&
        aps_json_raw_kind(v) == APS_JSON_OBJECT)
        ok = rest_merge_object(&configurable, v) == 0;
    if (!ok) {
        free(metadata);
        free(configurable);
        aps_json_writer_deinit(&w);
        return -1;
    }
    aps_json_write_object_begin(&w);
    write_member(&w, "input", body_raw(req, "input", a, "null"));
    command = body_raw(req, "command", a, "null");
    if (aps_json_raw_kind(command) != APS_JSON_NULL)
        write_member(&w, "command", command);
    aps_json_write_key(&w, "config", 6);
    aps_json_write_object_begin(&w);
    aps_json_raw_reader(&rd, config, a);
    if (aps_json_raw_kind(config) == APS_JSON_OBJECT && aps_json_read_object(&rd, NULL) == APS_OK)
        while (aps_json_next_member(&rd, &key, &more, NULL) == APS_OK && more && aps_json_read_raw(&rd, &v, NULL) == APS_OK)
            if (!(key.len == 12 && memcmp(key.ptr, "configurable", 12) == 0) &&
                !(key.len == 8 && memcmp(key.ptr, "metadata", 8) == 0)) {
                aps_json_write_key(&w, key.ptr, key.len);
                aps_json_write_raw(&w, v);
            }
    write_member(&w, "configurable", (aps_json_raw){ configurable, strlen(configurable) });
    write_member(&w, "metadata", (aps_json_raw){ metadata, strlen(metadata) });
    aps_json_write_object_end(&w);
    write_member(&w, "context", body_raw(req, "context", a, "{}"));
    write_member(&w, "stream_mode", body_raw(req, "stream_mode", a, "[\"values\"]"));
    write_member(&w, "temporary", body_raw(req, "temporary", a, "false"));
    write_member(&w, "subgraphs", body_raw(req, "stream_subgraphs", a, "false"));
    write_member(&w, "resumable", body_raw(req, "stream_resumable", a, "false"));
    aps_json_write_object_end(&w);
    free(configurable);
    ok = aps_json_writer_status(&w) == APS_OK;
    if (ok) {
        char *kwargs = rest_strndup(aps_json_writer_data(&w), aps_json_writer_len(&w));
        if ((ok = kwargs != NULL) != 0) {
            free(run->kwargs);
            run->kwargs = kwargs;
            free(run->metadata);
            run->metadata = metadata;
            metadata = NULL;
        }
    }
    free(metadata);
    aps_json_writer_deinit(&w);
    return ok ? 0 : -1;
}

/* POST /threads/{id}/runs[/stream|/wait], POST /runs[/stream|/wait]. */
static void run_create(rest *r, const char *thread_id, run_kind kind, const ap_server_request *req, aps_arena *a,
                       ap_server_reply *reply)
{
    aa_run_create_t q;
    char tid[REST_MAX_ID + 1], aid[REST_MAX_ID + 1], cancel_thread[REST_MAX_ID + 1] = "";
    const char *strategy;
    rthread *t;
    rrun *run, *active = NULL;
    uint32_t modes;
    int g, made_thread = 0, resume = 0, start = 1;
    char *resume_json = NULL, *metadata;
    aps_json_raw raw;
    if (rest_decode(req, &aa_run_create_type, a, &q, reply) != 0)
        return;
    if (!q.has_assistant_id && !q.has_agent_id) {
        rest_error(reply, 422, "/assistant_id", "a run names its assistant_id");
        return;
    }
    raw.ptr = q.has_assistant_id ? q.assistant_id.ptr : q.agent_id.ptr;
    raw.len = q.has_assistant_id ? q.assistant_id.len : q.agent_id.len;
    if (rest_check_id(raw.ptr, raw.len) != 0) {
        rest_error(reply, 422, q.has_assistant_id ? "/assistant_id" : "/agent_id", "an assistant id is 1 to %u bytes",
                   REST_MAX_ID);
        return;
    }
    memcpy(aid, raw.ptr, raw.len);
    aid[raw.len] = '\0';
    if ((g = rest_graph(r, aid)) < 0) {
        rest_error(reply, 404, "/assistant_id", "no assistant %s: serve answers for its scripts' graphs", aid);
        return;
    }
    if ((modes = stream_modes(&q, q.has_stream_subgraphs && q.stream_subgraphs, reply)) == 0)
        return;
    if (thread_id == NULL && q.has_thread_id) {
        if (rest_check_id(q.thread_id.ptr, q.thread_id.len) != 0) {
            rest_error(reply, 422, "/thread_id", "a thread id is 1 to %u bytes of printable UTF-8", REST_MAX_ID);
            return;
        }
        memcpy(tid, q.thread_id.ptr, q.thread_id.len);
        tid[q.thread_id.len] = '\0';
        thread_id = tid;
    }
    strategy = q.has_multitask_strategy ? aa_multitask_strategy_name(q.multitask_strategy) : "reject";
    if (q.has_command && !q.command_is_null && q.command.has_resume) {
        resume = 1;
        if ((resume_json = rest_strndup(q.command.resume.ptr, q.command.resume.len)) == NULL) {
            rest_error(reply, 500, NULL, "no memory for the command");
            return;
        }
    }
    {
        aps_json_raw m = body_raw(req, "metadata", a, "{}");
        metadata = rest_strndup(m.ptr, m.len);
    }
    if (metadata == NULL) {
        free(resume_json);
        rest_error(reply, 500, NULL, "no memory for the run");
        return;
    }
    pthread_mutex_lock(&r->lock);
    t = thread_id != NULL ? rest_thread_find(r, thread_id) : NULL;
    if (t == NULL) {
        char nid[40];
        if (thread_id != NULL && !(q.has_if_not_exists && q.if_not_exists == AA_RUN_CREATE_IF_NOT_EXISTS_CREATE)) {
            rest_error(reply, 404, NULL, "no thread %s (if_not_exists: \"create\" makes it)", thread_id);
            goto refused;
        }
        if (thread_id == NULL)
            rest_uuid(r, nid);
        if ((t = rest_thread_add(r, thread_id != NULL ? thread_id : nid, NULL, 0)) == NULL) {
            rest_error(reply, 500, NULL, "no memory for the thread");
            goto refused;
        }
        made_thread = 1;
    }
    if (t->active[0] != '\0')
        active = rest_run_find(r, t->active);
    if (active != NULL && strcmp(t->status, "busy") == 0) {
        if (strcmp(strategy, "reject") == 0) {
            rest_error(reply, 409, "/multitask_strategy",
                       "thread %s has a run in progress (multitask_strategy \"reject\")", t->id);
            goto refused;
        }
        if (strcmp(strategy, "enqueue") == 0) {
            start = 0;
        } else {
            /* interrupt or rollback: the active run stops for this one */
            run_end(t, active, "interrupted", "idle");
            if (strcmp(strategy, "rollback") == 0)
                rest_run_remove(r, active);
            snprintf(cancel_thread, sizeof cancel_thread, "%s", t->id);
        }
    } else if (t->interrupts != NULL && !resume) {
        /* a new input on a paused thread: the paused run is dropped, a new one starts */
        snprintf(cancel_thread, sizeof cancel_thread, "%s", t->id);
    }
    if (resume && t->interrupts == NULL && start) {
        rest_error(reply, 400, "/command/resume", "thread %s waits for no input", t->id);
        goto refused;
    }
    if ((run = run_add(r, t, r->assistant_ids[g], strategy, modes)) == NULL) {
        rest_error(reply, 500, NULL, "no memory for the run");
        goto refused;
    }
    run->metadata = metadata;
    run->resume = resume;
    run->resume_json = resume_json;
    metadata = resume_json = NULL;
    snprintf(t->graph, sizeof t->graph, "%s", r->graphs[g]);
    snprintf(run->graph, sizeof run->graph, "%s", r->graphs[g]);
    {
        /* the thread's metadata names the graph that ran on it, as the reference server's does */
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        aps_json_write_object_begin(&w);
        write_str(&w, "graph_id", r->graphs[g]);
        write_str(&w, "assistant_id", r->assistant_ids[g]);
        aps_json_write_object_end(&w);
        if (aps_json_writer_status(&w) == APS_OK)
            (void)rest_merge_object(&t->metadata, (aps_json_raw){ aps_json_writer_data(&w), aps_json_writer_len(&w) });
        aps_json_writer_deinit(&w); /* (out of memory: the metadata stays as it was) */
    }
    if (run_record(run, t, req, a) != 0) {
        rest_run_remove(r, run);
        rest_error(reply, 500, NULL, "no memory for the run");
        goto refused;
    }
    if (start) {
        strcpy(run->status, "running");
        snprintf(t->active, sizeof t->active, "%s", run->id);
        strcpy(t->status, "busy");
        /* a new run drops the interrupt, a resume answers it: either way it is no longer pending */
        free(t->interrupts);
        t->interrupts = NULL;
    } else {
        run->pending = 1;
    }
    rest_now(t->updated);
    {
        char rid[40], thr[REST_MAX_ID + 1];
        const char *resume_arg = run->resume_json;
        snprintf(rid, sizeof rid, "%s", run->id);
        snprintf(thr, sizeof thr, "%s", t->id);
        snprintf(reply->content_location, sizeof reply->content_location, "/threads/%s/runs/%s", thr, rid);
        if (kind == RUN_STREAM) {
            ap_server_feed_ref(run->feed);
            reply->feed = run->feed;
            reply->feed_from = 0;
            reply->feed_mask = modes;
            reply->status = 200;
        } else if (kind == RUN_WAIT) {
            ap_server_feed_ref(run->feed);
            reply->feed = run->feed;
            reply->feed_wait = 1;
            reply->status = 200;
            snprintf(reply->token, sizeof reply->token, "wait:%s", run->id);
        } else {
            aps_json_writer w;
            aps_json_writer_init(&w, NULL);
            rest_run_json(run, &w);
            rest_reply_typed(reply, 200, &aa_run_type, &w);
            aps_json_writer_deinit(&w);
        }
        pthread_mutex_unlock(&r->lock);
        if (r->be != NULL && r->be->commit(r) != 0) {
            /* the records could not be written: nothing starts, nothing is left (rest_end forgets the run) */
            rest_reply_unavailable(reply);
            return;
        }
        if (cancel_thread[0] != '\0' && r->hooks.cancel != NULL)
            r->hooks.cancel(r->hooks.user, cancel_thread);
        if (start && r->hooks.start(r->hooks.user, thr, rid, r->graphs[g], resume, resume_arg) != 0) {
            /* nothing half done: the run fails as a whole, and says so */
            pthread_mutex_lock(&r->lock);
            if ((t = rest_thread_find(r, thr)) != NULL && (run = rest_run_find(r, rid)) != NULL) {
                emit_error(run, "the run could not start");
                run_end(t, run, "error", "error");
            }
            pthread_mutex_unlock(&r->lock);
        }
        return;
    }
refused:
    if (made_thread)
        rest_thread_remove(r, t); /* nothing half done */
    pthread_mutex_unlock(&r->lock);
    free(metadata);
    free(resume_json);
}

/* The answer of runs.wait and join: the thread's values, with `__interrupt__` when it paused. */
void rest_runs_finish_wait(rest *r, const char *token, ap_server_reply *reply)
{
    const char *id = strchr(token, ':');
    rrun *run;
    rthread *t;
    aps_json_writer w;
    pthread_mutex_lock(&r->lock);
    run = id != NULL ? rest_run_find(r, id + 1) : NULL;
    t = run != NULL ? rest_thread_find(r, run->thread) : NULL;
    if (run == NULL || t == NULL) {
        rest_error(reply, 404, NULL, "the run is gone");
        pthread_mutex_unlock(&r->lock);
        return;
    }
    aps_json_writer_init(&w, NULL);
    if (strcmp(run->status, "error") == 0) {
        pthread_mutex_unlock(&r->lock);
        aps_json_write_object_begin(&w);
        write_str(&w, "__error__", "the run failed");
        aps_json_write_object_end(&w);
        rest_reply_raw(reply, 200, aps_json_writer_data(&w), aps_json_writer_len(&w));
        aps_json_writer_deinit(&w);
        return;
    }
    if (t->interrupts != NULL) {
        char *values = t->values != NULL ? rest_strndup(t->values, strlen(t->values)) : NULL;
        aps_json_raw v = { values != NULL ? values : "{}", values != NULL ? strlen(values) : 2 };
        /* the values, and `__interrupt__` beside them */
        if (v.len > 2 && v.ptr[0] == '{') {
            aps_json_raw inner = { v.ptr + 1, v.len - 2 };
            aps_json_write_object_begin(&w);
            aps_json_write_key(&w, "__interrupt__", 13);
            aps_json_write_raw(&w, (aps_json_raw){ t->interrupts, strlen(t->interrupts) });
            aps_json_write_object_end(&w);
            {
                /* splice: {"__interrupt__":[...]} + the values' members */
                size_t n = aps_json_writer_len(&w);
                char *text = malloc(n + inner.len + 2);
                if (text != NULL) {
                    memcpy(text, aps_json_writer_data(&w), n - 1);
                    text[n - 1] = ',';
                    memcpy(text + n, inner.ptr, inner.len);
                    text[n + inner.len] = '}';
                    rest_reply_raw(reply, 200, text, n + inner.len + 1);
                    free(text);
                }
            }
        } else {
            aps_json_write_object_begin(&w);
            aps_json_write_key(&w, "__interrupt__", 13);
            aps_json_write_raw(&w, (aps_json_raw){ t->interrupts, strlen(t->interrupts) });
            aps_json_write_object_end(&w);
            rest_reply_raw(reply, 200, aps_json_writer_data(&w), aps_json_writer_len(&w));
        }
        free(values);
    } else {
        aps_json_write_raw(&w, (aps_json_raw){ t->values != NULL ? t->values : "{}", t->values != NULL ? strlen(t->values) : 2 });
        rest_reply_raw(reply, 200, aps_json_writer_data(&w), aps_json_writer_len(&w));
    }
    pthread_mutex_unlock(&r->lock);
    aps_json_writer_deinit(&w);
}

static int seg_eq(const char *seg, size_t len, const char *s)
{
    return len == strlen(s) && memcmp(seg, s, len) == 0;
}

void rest_thread_runs(rest *r, const char *thread, const char *const *seg, const size_t *len, size_t n,
                      const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    int get = req->method == AP_SERVER_GET, post = req->method == AP_SERVER_POST;
    char rid[REST_MAX_ID + 1];
    rrun *run;
    rthread *t;
    if (n == 0 && post) {
        run_create(r, thread, RUN_BACKGROUND, req, a, reply);
        return;
    }
    if (n == 1 && post && seg_eq(seg[0], len[0], "stream")) {
        run_create(r, thread, RUN_STREAM, req, a, reply);
        return;
    }
    if (n == 1 && post && seg_eq(seg[0], len[0], "wait")) {
        run_create(r, thread, RUN_WAIT, req, a, reply);
        return;
    }
    if ((n == 0 && get && thread != NULL) || (n == 1 && post && thread == NULL && seg_eq(seg[0], len[0], "search"))) {
        /* the thread's runs, newest first; or the Agent Protocol's search */
        aa_run_search_request_t q;
        aps_json_writer w;
        long limit = 10, offset = 0, seen = 0, listed = 0;
        char status[16] = "", want_thread[REST_MAX_ID + 1] = "";
        uint64_t last = UINT64_MAX;
        if (thread == NULL) {
            if (rest_decode(req, &aa_run_search_request_type, a, &q, reply) != 0)
                return;
            limit = q.has_limit ? (long)q.limit : 10;
            offset = q.has_offset ? (long)q.offset : 0;
            if (q.has_status)
                snprintf(status, sizeof status, "%s", aa_run_status_name(q.status));
            if (q.has_thread_id)
                snprintf(want_thread, sizeof want_thread, "%.*s", (int)(q.thread_id.len < REST_MAX_ID ? q.thread_id.len : REST_MAX_ID), q.thread_id.ptr);
        } else {
            if ((limit = rest_query_count(req, "limit", 10, reply)) < 0 ||
                (offset = rest_query_count(req, "offset", 0, reply)) < 0)
                return;
            if (!rest_query(req->query, "status", status, sizeof status))
                status[0] = '\0';
            snprintf(want_thread, sizeof want_thread, "%s", thread);
        }
        pthread_mutex_lock(&r->lock);
        if (thread != NULL && rest_thread_find(r, thread) == NULL) {
            pthread_mutex_unlock(&r->lock);
            rest_error(reply, 404, NULL, "no thread %s", thread);
            return;
        }
        if (r->be != NULL)
            r->be->load_runs(r, want_thread[0] != '\0' ? want_thread : NULL);
        aps_json_writer_init(&w, NULL);
        aps_json_write_array_begin(&w);
        while (listed < limit) {
            rrun *best = NULL;
            for (run = r->runs; run != NULL; run = run->next)
                if (run->order < last && (best == NULL || run->order > best->order) &&
                    (want_thread[0] == '\0' || strcmp(run->thread, want_thread) == 0) &&
                    (status[0] == '\0' || strcmp(run->status, status) == 0))
                    best = run;
            if (best == NULL)
                break;
            last = best->order;
            if (seen++ < offset)
                continue;
            rest_run_json(best, &w);
            listed++;
        }
        aps_json_write_array_end(&w);
        pthread_mutex_unlock(&r->lock);
        rest_reply_array(reply, &aa_run_type, &w);
        aps_json_writer_deinit(&w);
        return;
    }
    if (n < 1 || n > 2 || rest_check_id(seg[0], len[0]) != 0) {
        if (n >= 1 && n <= 2)
            rest_error(reply, 422, NULL, "a run id is 1 to %u bytes of printable UTF-8", REST_MAX_ID);
        return;
    }
    memcpy(rid, seg[0], len[0]);
    rid[len[0]] = '\0';
    pthread_mutex_lock(&r->lock);
    run = rest_run_find(r, rid);
    if (run == NULL || (thread != NULL && strcmp(run->thread, thread) != 0)) {
        pthread_mutex_unlock(&r->lock);
        rest_error(reply, 404, NULL, "no run %s%s%s", rid, thread != NULL ? " on thread " : "",
                   thread != NULL ? thread : "");
        return;
    }
    t = rest_thread_find(r, run->thread);
    if (n == 2 && get && run->feed == NULL &&
        (seg_eq(seg[1], len[1], "join") || seg_eq(seg[1], len[1], "wait") || seg_eq(seg[1], len[1], "stream"))) {
        /* a run another replica plays (with --redis): its classic stream is there */
        int ended = strcmp(run->status, "running") != 0 && strcmp(run->status, "pending") != 0;
        int stream = seg_eq(seg[1], len[1], "stream");
        char token[48];
        ap_server_feed *watched = NULL;
        snprintf(token, sizeof token, "join:%s", run->id);
        pthread_mutex_unlock(&r->lock);
        if (ended && !stream) {
            rest_runs_finish_wait(r, token, reply); /* it ended: its answer is in the records */
        } else if (!stream && r->be != NULL && (watched = r->be->watch(r, rid)) != NULL) {
            /* a long poll here, answered from the records once the run ends there */
            reply->feed = watched;
            reply->feed_wait = 1;
            reply->status = 200;
            snprintf(reply->token, sizeof reply->token, "%s", token);
        } else {
            rest_error(reply, 409, NULL,
                       "run %s %s on another replica: its classic stream is there (join it there, or poll "
                       "GET /threads/%s/runs/%s)",
                       rid, ended ? "was streamed" : "plays", run->thread, rid);
        }
        return;
    }
    if (n == 1 && get) {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        rest_run_json(run, &w);
        pthread_mutex_unlock(&r->lock);
        rest_reply_typed(reply, 200, &aa_run_type, &w);
        aps_json_writer_deinit(&w);
        return;
    }
    if (n == 1 && req->method == AP_SERVER_DELETE) {
        if (t != NULL && strcmp(t->active, run->id) == 0 && strcmp(t->status, "busy") == 0) {
            pthread_mutex_unlock(&r->lock);
            rest_error(reply, 409, NULL, "run %s is in progress: cancel it first", rid);
            return;
        }
        rest_run_remove(r, run);
        pthread_mutex_unlock(&r->lock);
        rest_reply_raw(reply, 204, "", 0);
        return;
    }
    if (n == 2 && get && (seg_eq(seg[1], len[1], "join") || seg_eq(seg[1], len[1], "wait"))) {
        ap_server_feed_ref(run->feed);
        reply->feed = run->feed;
        reply->feed_wait = 1;
        reply->status = 200;
        snprintf(reply->token, sizeof reply->token, "join:%s", run->id);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    if (n == 2 && get && seg_eq(seg[1], len[1], "stream")) {
        /* a join of the run's stream: from after Last-Event-ID, else from its start */
        char *end;
        unsigned long long after = 0;
        /* (useStream joins with "-1" for "from the start") */
        int from_id = req->last_event_id[0] != '\0' && strcmp(req->last_event_id, "-1") != 0;
        if (from_id) {
            after = strtoull(req->last_event_id, &end, 10);
            if (*end != '\0') {
                pthread_mutex_unlock(&r->lock);
                rest_error(reply, 422, NULL, "Last-Event-ID is an event id of this run's stream (a count)");
                return;
            }
        }
        ap_server_feed_ref(run->feed);
        reply->feed = run->feed;
        reply->feed_from = from_id ? after + 1 : 0;
        reply->feed_mask = query_modes(req, run->modes);
        reply->status = 200;
        pthread_mutex_unlock(&r->lock);
        return;
    }
    if (n == 2 && post && seg_eq(seg[1], len[1], "cancel")) {
        char action[16] = "interrupt", thr[REST_MAX_ID + 1], next_id[40] = "", next_graph[64] = "";
        int was_active = t != NULL && strcmp(t->active, run->id) == 0;
        rrun *next;
        (void)rest_query(req->query, "action", action, sizeof action);
        snprintf(thr, sizeof thr, "%s", run->thread);
        if (run->pending) {
            run->pending = 0;
            run_end(t, run, "interrupted", t != NULL ? t->status : "idle");
        } else if (was_active) {
            run_end(t, run, "interrupted", "idle");
            if (t != NULL) {
                free(t->interrupts);
                t->interrupts = NULL;
            }
        }
        if (strcmp(action, "rollback") == 0)
            rest_run_remove(r, run);
        if (was_active && t != NULL)
            (void)move_queue(r, t, next_id, next_graph); /* as when a run ends */
        pthread_mutex_unlock(&r->lock);
        if (was_active && r->hooks.cancel != NULL)
            r->hooks.cancel(r->hooks.user, thr);
        if (next_id[0] != '\0' && r->hooks.start(r->hooks.user, thr, next_id, next_graph, 0, NULL) != 0) {
            pthread_mutex_lock(&r->lock);
            if ((t = rest_thread_find(r, thr)) != NULL && (next = rest_run_find(r, next_id)) != NULL)
                run_end(t, next, "error", "error");
            pthread_mutex_unlock(&r->lock);
        }
        rest_reply_raw(reply, 204, "", 0);
        return;
    }
    pthread_mutex_unlock(&r->lock);
}
