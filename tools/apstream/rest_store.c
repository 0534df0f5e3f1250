/*
 * rest_store.c - the records of serve's REST API, in memory (threads with
 * their states, runs, store items; the assistants are the scripts'
 * graphs), and the routes of threads, assistants and the store
 * (docs/rest.md). Every record is reached through the functions of
 * rest_internal.h, which read it through a backend (rest_redis.c) when
 * there is one.
 */
#include "rest_internal.h"

#include "aps/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* ---- helpers -------------------------------------------------------------------------- */

void rest_now(char *buf)
{
    struct timeval tv;
    struct tm tm;
    time_t t;
    gettimeofday(&tv, NULL);
    t = tv.tv_sec;
    gmtime_r(&t, &tm);
    snprintf(buf, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100, tm.tm_mday % 100,
             tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100, (int)(tv.tv_usec / 1000) % 1000);
}

static uint64_t next_random(rest *r)
{
    /* xorshift64*: ids need to be unique, not secret */
    uint64_t x = r->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

void rest_uuid(rest *r, char *buf)
{
    uint64_t a = next_random(r), b = next_random(r);
    snprintf(buf, 40, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffffu,
             (unsigned)a & 0xfffu, (unsigned)(0x8000u | ((b >> 48) & 0x3fffu)),
             (unsigned long long)(b & 0xffffffffffffULL));
}

char *rest_strndup(const char *text, size_t len)
{
    char *s = malloc(len + 1);
    if (s != NULL) {
        memcpy(s, text, len);
        s[len] = '\0';
    }
    return s;
}

/* The value JSON of raw `v` written compactly with sorted object members into w. */
static void canonical(aps_json_raw v, aps_json_writer *w);

static int member_cmp(const void *a, const void *b)
{
    const aps_slice *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->ptr, y->ptr, n);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

static void canonical(aps_json_raw v, aps_json_writer *w)
{
    aps_arena arena;
    aps_json_reader r;
    aps_json_kind k = aps_json_raw_kind(v);
    int more = 0;
    aps_arena_init(&arena, NULL);
    aps_json_raw_reader(&r, v, &arena);
    if (k == APS_JSON_OBJECT) {
        aps_slice keys[64];
        aps_json_raw vals[64];
        size_t n = 0, i;
        aps_slice key;
        if (aps_json_read_object(&r, NULL) == APS_OK)
            while (n < 64 && aps_json_next_member(&r, &key, &more, NULL) == APS_OK && more &&
                   aps_json_read_raw(&r, &vals[n], NULL) == APS_OK) {
                keys[n] = key;
                /* the key and value travel together: sort pairs by key */
                n++;
            }
        {
            size_t order[64];
            for (i = 0; i < n; i++)
                order[i] = i;
            /* insertion sort by key (n is small) */
            for (i = 1; i < n; i++) {
                size_t j = i, o = order[i];
                while (j > 0 && member_cmp(&keys[order[j - 1]], &keys[o]) > 0) {
                    order[j] = order[j - 1];
                    j--;
                }
                order[j] = o;
            }
            aps_json_write_object_begin(w);
            for (i = 0; i < n; i++) {
                aps_json_write_key(w, keys[order[i]].ptr, keys[order[i]].len);
                canonical(vals[order[i]], w);
            }
            aps_json_write_object_end(w);
        }
    } else if (k == APS_JSON_ARRAY) {
        aps_json_raw e;
        aps_json_write_array_begin(w);
        if (aps_json_read_array(&r, NULL) == APS_OK)
            while (aps_json_next_element(&r, &more, NULL) == APS_OK && more && aps_json_read_raw(&r, &e, NULL) == APS_OK)
                canonical(e, w);
        aps_json_write_array_end(w);
    } else if (k == APS_JSON_STRING) {
        aps_slice s;
        if (aps_json_read_string(&r, &s, NULL) == APS_OK)
            aps_json_write_string(w, s.ptr, s.len);
    } else {
        aps_json_write_raw(w, v); /* a number, true, false, null: compact already */
    }
    aps_arena_deinit(&arena);
}

int rest_json_equal(aps_json_raw a, aps_json_raw b)
{
    aps_json_writer x, y;
    int eq;
    aps_json_writer_init(&x, NULL);
    aps_json_writer_init(&y, NULL);
    canonical(a, &x);
    canonical(b, &y);
    eq = aps_json_writer_len(&x) == aps_json_writer_len(&y) &&
         memcmp(aps_json_writer_data(&x), aps_json_writer_data(&y), aps_json_writer_len(&x)) == 0;
    aps_json_writer_deinit(&x);
    aps_json_writer_deinit(&y);
    return eq;
}

/* Whether object `obj` (JSON) has every member of `filter` (JSON object) with an equal value. */
static int matches(const char *obj, const char *filter, size_t flen)
{
    aps_arena arena;
    aps_json_reader r;
    aps_json_raw f = { filter, flen }, o, have, want;
    aps_slice key;
    int more = 0, ok = 1;
    if (filter == NULL || flen == 0)
        return 1;
    if (obj == NULL)
        return 0;
    o.ptr = obj;
    o.len = strlen(obj);
    aps_arena_init(&arena, NULL);
    aps_json_raw_reader(&r, f, &arena);
    if (aps_json_read_object(&r, NULL) != APS_OK)
        ok = 0;
    while (ok && aps_json_next_member(&r, &key, &more, NULL) == APS_OK && more) {
        char name[256];
        if (key.len >= sizeof name || aps_json_read_raw(&r, &want, NULL) != APS_OK) {
            ok = 0;
            break;
        }
        memcpy(name, key.ptr, key.len);
        if (aps_json_raw_member(o, name, key.len, &arena, &have, NULL) != APS_OK || !rest_json_equal(have, want))
            ok = 0;
    }
    aps_arena_deinit(&arena);
    return ok;
}

/* Writes JSON text (NULL: `dflt`) as a raw value. */
static void write_json(aps_json_writer *w, const char *json, const char *dflt)
{
    aps_json_raw v;
    v.ptr = json != NULL ? json : dflt;
    v.len = strlen(v.ptr);
    aps_json_write_raw(w, v);
}

static void write_str(aps_json_writer *w, const char *key, const char *v)
{
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_string(w, v, strlen(v));
}

/* ---- threads ----------------------------------------------------------------------------- */

rthread *rest_thread_find(rest *r, const char *id)
{
    rthread *t;
    if (r->be != NULL)
        r->be->load_thread(r, id);
    for (t = r->threads; t != NULL; t = t->next)
        if (strcmp(t->id, id) == 0)
            return t;
    return NULL;
}

rthread *rest_thread_add(rest *r, const char *id, const char *metadata, size_t len)
{
    rthread *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    snprintf(t->id, sizeof t->id, "%s", id);
    rest_now(t->created);
    strcpy(t->updated, t->created);
    strcpy(t->status, "idle");
    t->metadata = metadata != NULL ? rest_strndup(metadata, len) : rest_strndup("{}", 2);
    if (t->metadata == NULL) {
        free(t);
        return NULL;
    }
    t->order = rest_next_order(r);
    t->touched = 1;
    t->next = r->threads;
    r->threads = t;
    return t;
}

uint64_t rest_next_order(rest *r)
{
    return r->be != NULL ? r->be->next_order(r) : ++r->order;
}

void rest_thread_free(rthread *t)
{
    size_t i;
    for (i = 0; i < t->nhist; i++) {
        free(t->hist[i].values);
        free(t->hist[i].metadata);
    }
    free(t->metadata);
    free(t->values);
    free(t->interrupts);
    free(t->saved);
    free(t);
}

void rest_thread_remove(rest *r, rthread *t)
{
    rthread **p;
    rrun *run, *next;
    if (r->be != NULL) {
        r->be->load_runs(r, t->id); /* (so that their deletion is written too) */
        r->be->forget(r, 't', t->id, NULL);
    }
    for (p = &r->threads; *p != NULL; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    for (run = r->runs; run != NULL; run = next) {
        next = run->next;
        if (strcmp(run->thread, t->id) == 0)
            rest_run_remove(r, run);
    }
    rest_thread_free(t);
}

void rest_thread_json(const rthread *t, aps_json_writer *w)
{
    aps_json_write_object_begin(w);
    write_str(w, "thread_id", t->id);
    write_str(w, "created_at", t->created);
    write_str(w, "updated_at", t->updated);
    aps_json_write_key(w, "metadata", 8);
    write_json(w, t->metadata, "{}");
    write_str(w, "status", t->status);
    aps_json_write_key(w, "config", 6);
    write_json(w, NULL, "{}");
    if (t->values != NULL) {
        aps_json_write_key(w, "values", 6);
        write_json(w, t->values, "{}");
        aps_json_write_key(w, "interrupts", 10);
        aps_json_write_object_begin(w);
        if (t->interrupts != NULL) {
            aps_json_write_key(w, t->checkpoint, strlen(t->checkpoint));
            write_json(w, t->interrupts, "[]");
        }
        aps_json_write_object_end(w);
    }
    aps_json_write_object_end(w);
}

void rest_step_metadata(aps_json_writer *w, const char *source, int64_t step)
{
    aps_json_write_object_begin(w);
    write_str(w, "source", source);
    aps_json_write_key(w, "step", 4);
    aps_json_write_int64(w, step);
    aps_json_write_key(w, "parents", 7);
    aps_json_write_object_begin(w);
    aps_json_write_object_end(w);
    aps_json_write_object_end(w);
}

/*
 * A state's metadata as the reference's checkpointer keeps it: its source,
 * step and parents, and, for a state a run made, that run's metadata (the
 * thread's, `created_by`, the request's) and ids. NULL out of memory.
 */
static char *state_metadata(const rthread *t, const rrun *run)
{
    aps_json_writer w;
    char *text;
    aps_json_writer_init(&w, NULL);
    rest_step_metadata(&w, "loop", t->step);
    text = aps_json_writer_status(&w) == APS_OK ? rest_strndup(aps_json_writer_data(&w), aps_json_writer_len(&w)) : NULL;
    aps_json_writer_reset(&w);
    aps_json_write_object_begin(&w);
    write_str(&w, "thread_id", t->id);
    if (run != NULL) {
        const char *graph = run->graph[0] != '\0' ? run->graph : t->graph; /* (a run started by run.start names none) */
        write_str(&w, "run_id", run->id);
        if (graph[0] != '\0')
            write_str(&w, "graph_id", graph);
        write_str(&w, "assistant_id", run->assistant);
        aps_json_write_key(&w, "run_attempt", 11);
        aps_json_write_int64(&w, 1);
    }
    aps_json_write_object_end(&w);
    if (text != NULL && ((run != NULL && run->metadata != NULL &&
                          rest_merge_object(&text, (aps_json_raw){ run->metadata, strlen(run->metadata) }) != 0) ||
                         aps_json_writer_status(&w) != APS_OK ||
                         rest_merge_object(&text, (aps_json_raw){ aps_json_writer_data(&w), aps_json_writer_len(&w) }) != 0)) {
        free(text);
        text = NULL;
    }
    aps_json_writer_deinit(&w);
    return text;
}

void rest_thread_push_state(rest *r, rthread *t, const char *values, size_t len, const rrun *run)
{
    rstate *s;
    char *copy = rest_strndup(values, len), *copy2 = rest_strndup(values, len), *metadata = state_metadata(t, run);
    if (copy == NULL || copy2 == NULL || metadata == NULL) {
        free(copy);
        free(copy2);
        free(metadata);
        return;
    }
    if (t->nhist == REST_MAX_HISTORY) {
        free(t->hist[0].values);
        free(t->hist[0].metadata);
        memmove(&t->hist[0], &t->hist[1], (REST_MAX_HISTORY - 1) * sizeof t->hist[0]);
        t->nhist--;
    }
    s = &t->hist[t->nhist++];
    t->pushed++;
    memset(s, 0, sizeof *s);
    s->values = copy;
    s->metadata = metadata;
    strcpy(s->parent, t->nhist > 1 ? t->hist[t->nhist - 2].checkpoint : "");
    if (t->checkpoint[0] == '\0' || (t->nhist > 1 && strcmp(t->checkpoint, s->parent) == 0))
        rest_uuid(r, t->checkpoint); /* a script without checkpoints: one per state */
    strcpy(s->checkpoint, t->checkpoint);
    rest_now(s->created);
    s->step = t->step;
    free(t->values);
    t->values = copy2;
    rest_now(t->updated);
}

void rest_state_json(const rthread *t, const rstate *s, aps_json_writer *w)
{
    int newest = s == NULL || s == &t->hist[t->nhist - 1];
    if (s == NULL && t->nhist > 0)
        s = &t->hist[t->nhist - 1];
    aps_json_write_object_begin(w);
    aps_json_write_key(w, "values", 6);
    write_json(w, s != NULL ? s->values : t->values, "{}");
    aps_json_write_key(w, "next", 4);
    aps_json_write_array_begin(w);
    if (newest && t->interrupts != NULL) /* (useStream reads a state's interrupts only while it has a next) */
        aps_json_write_string(w, t->interrupt_node, strlen(t->interrupt_node));
    aps_json_write_array_end(w);
    aps_json_write_key(w, "tasks", 5);
    aps_json_write_array_begin(w);
    if (newest && t->interrupts != NULL) {
        /* the paused node: the task whose interrupts the client answers */
        aps_json_write_object_begin(w);
        write_str(w, "id", t->checkpoint);
        write_str(w, "name", t->interrupt_node);
        aps_json_write_key(w, "error", 5);
        aps_json_write_null(w);
        aps_json_write_key(w, "interrupts", 10);
        write_json(w, t->interrupts, "[]");
        /* where the task is, as the reference's checkpointer says it */
        aps_json_write_key(w, "path", 4);
        aps_json_write_array_begin(w);
        aps_json_write_string(w, "__pregel_pull", 13);
        aps_json_write_string(w, t->interrupt_node, strlen(t->interrupt_node));
        aps_json_write_array_end(w);
        aps_json_write_key(w, "checkpoint", 10);
        aps_json_write_object_begin(w);
        write_str(w, "thread_id", t->id);
        {
            char ns[128];
            snprintf(ns, sizeof ns, "%s:%s", t->interrupt_node, t->checkpoint);
            write_str(w, "checkpoint_ns", ns);
        }
        aps_json_write_object_end(w);
        aps_json_write_key(w, "state", 5);
        aps_json_write_null(w);
        aps_json_write_key(w, "result", 6);
        aps_json_write_null(w);
        aps_json_write_object_end(w);
    }
    aps_json_write_array_end(w);
    aps_json_write_key(w, "metadata", 8);
    if (s != NULL && s->metadata != NULL) {
        write_json(w, s->metadata, "{}");
    } else {
        aps_json_write_object_begin(w);
        write_str(w, "source", "loop");
        aps_json_write_key(w, "step", 4);
        aps_json_write_int64(w, s != NULL ? s->step : -1);
        write_str(w, "thread_id", t->id);
        aps_json_write_object_end(w);
    }
    aps_json_write_key(w, "created_at", 10);
    if (s != NULL)
        aps_json_write_string(w, s->created, strlen(s->created));
    else
        aps_json_write_null(w);
    if (s != NULL) {
        aps_json_write_key(w, "checkpoint", 10);
        aps_json_write_object_begin(w);
        write_str(w, "thread_id", t->id);
        write_str(w, "checkpoint_ns", "");
        write_str(w, "checkpoint_id", s->checkpoint);
        aps_json_write_key(w, "checkpoint_map", 14);
        aps_json_write_null(w);
        aps_json_write_object_end(w);
        aps_json_write_key(w, "parent_checkpoint", 17);
        if (s->parent[0] != '\0') {
            aps_json_write_object_begin(w);
            write_str(w, "thread_id", t->id);
            write_str(w, "checkpoint_ns", "");
            write_str(w, "checkpoint_id", s->parent);
            aps_json_write_key(w, "checkpoint_map", 14);
            aps_json_write_null(w);
            aps_json_write_object_end(w);
        } else {
            aps_json_write_null(w);
        }
    }
    if (newest && t->interrupts != NULL) {
        aps_json_write_key(w, "interrupts", 10);
        write_json(w, t->interrupts, "[]");
    }
    aps_json_write_object_end(w);
}

/* ---- runs (records) ------------------------------------------------------------------------ */

rrun *rest_run_find(rest *r, const char *id)
{
    rrun *run;
    if (r->be != NULL)
        r->be->load_run(r, id);
    for (run = r->runs; run != NULL; run = run->next)
        if (strcmp(run->id, id) == 0)
            return run;
    return NULL;
}

void rest_run_remove(rest *r, rrun *run)
{
    if (r->be != NULL)
        r->be->forget(r, 'r', run->id, run->thread);
    rest_run_drop(r, run);
}

void rest_run_drop(rest *r, rrun *run)
{
    rrun **p;
    for (p = &r->runs; *p != NULL; p = &(*p)->next)
        if (*p == run) {
            *p = run->next;
            r->nruns--;
            break;
        }
    if (run->feed != NULL) {
        ap_server_feed_close(run->feed);
        ap_server_feed_unref(run->feed);
    }
    free(run->metadata);
    free(run->kwargs);
    free(run->resume_json);
    free(run->msg_ns);
    free(run->text);
    free(run->tool_args);
    free(run->saved);
    free(run);
}

void rest_run_json(const rrun *run, aps_json_writer *w)
{
    aps_json_write_object_begin(w);
    write_str(w, "run_id", run->id);
    write_str(w, "thread_id", run->thread);
    write_str(w, "assistant_id", run->assistant);
    write_str(w, "created_at", run->created);
    write_str(w, "updated_at", run->updated);
    write_str(w, "status", run->status);
    aps_json_write_key(w, "metadata", 8);
    write_json(w, run->metadata, "{}");
    write_str(w, "multitask_strategy", run->multitask);
    aps_json_write_key(w, "kwargs", 6);
    write_json(w, run->kwargs, "{}");
    aps_json_write_object_end(w);
}

/* ---- assistants --------------------------------------------------------------------------- */

int rest_graph(const rest *r, const char *id)
{
    size_t i;
    for (i = 0; i < r->ngraphs; i++)
        if (strcmp(r->assistant_ids[i], id) == 0 || strcmp(r->graphs[i], id) == 0)
            return (int)i;
    return -1;
}

static void assistant_json(const rest *r, size_t i, int agent, aps_json_writer *w)
{
    aps_json_write_object_begin(w);
    if (agent) {
        write_str(w, "agent_id", r->assistant_ids[i]);
        write_str(w, "name", r->graphs[i]);
        aps_json_write_key(w, "description", 11);
        aps_json_write_null(w);
        aps_json_write_key(w, "metadata", 8);
        write_json(w, NULL, "{\"created_by\":\"system\"}");
        aps_json_write_key(w, "capabilities", 12);
        write_json(w, NULL, "{\"ap.io.messages\":true,\"ap.io.streaming\":true}");
    } else {
        write_str(w, "assistant_id", r->assistant_ids[i]);
        write_str(w, "graph_id", r->graphs[i]);
        write_str(w, "name", r->graphs[i]);
        aps_json_write_key(w, "version", 7);
        aps_json_write_uint64(w, 1);
        aps_json_write_key(w, "config", 6);
        write_json(w, NULL, "{}");
        aps_json_write_key(w, "context", 7);
        write_json(w, NULL, "{}");
        aps_json_write_key(w, "metadata", 8);
        write_json(w, NULL, "{\"created_by\":\"system\"}");
        write_str(w, "created_at", r->started);
        write_str(w, "updated_at", r->started);
        aps_json_write_key(w, "description", 11);
        aps_json_write_null(w);
    }
    aps_json_write_object_end(w);
}

void rest_assistants_search(rest *r, const ap_server_request *req, int agents, aps_arena *a, ap_server_reply *reply)
{
    aa_assistant_search_request_t q;
    aps_json_writer w;
    size_t i, seen = 0, listed = 0, limit = 10, offset = 0;
    if (rest_decode(req, &aa_assistant_search_request_type, a, &q, reply) != 0)
        return;
    if (q.has_limit)
        limit = (size_t)q.limit;
    if (q.has_offset)
        offset = (size_t)q.offset;
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    for (i = 0; i < r->ngraphs && listed < limit; i++) {
        if (q.has_graph_id && (q.graph_id.len != strlen(r->graphs[i]) ||
                               memcmp(q.graph_id.ptr, r->graphs[i], q.graph_id.len) != 0))
            continue;
        if (q.has_name && (q.name.len != strlen(r->graphs[i]) || memcmp(q.name.ptr, r->graphs[i], q.name.len) != 0))
            continue;
        if (seen++ < offset)
            continue;
        assistant_json(r, i, agents, &w);
        listed++;
    }
    aps_json_write_array_end(&w);
    rest_reply_array(reply, agents ? &aa_agent_type : &aa_assistant_type, &w);
    aps_json_writer_deinit(&w);
}

void rest_assistants_count(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_assistant_search_request_t q;
    char text[24];
    size_t i, n = 0;
    if (rest_decode(req, &aa_assistant_search_request_type, a, &q, reply) != 0)
        return;
    for (i = 0; i < r->ngraphs; i++)
        if (!q.has_graph_id ||
            (q.graph_id.len == strlen(r->graphs[i]) && memcmp(q.graph_id.ptr, r->graphs[i], q.graph_id.len) == 0))
            n++;
    snprintf(text, sizeof text, "%zu", n);
    rest_reply_raw(reply, 200, text, strlen(text));
}

void rest_assistant_get(rest *r, const char *id, int agent, ap_server_reply *reply)
{
    aps_json_writer w;
    int i = rest_graph(r, id);
    if (i < 0) {
        rest_error(reply, 404, NULL, "no assistant %s", id);
        return;
    }
    aps_json_writer_init(&w, NULL);
    assistant_json(r, (size_t)i, agent, &w);
    rest_reply_typed(reply, 200, agent ? &aa_agent_type : &aa_assistant_type, &w);
    aps_json_writer_deinit(&w);
}

void rest_assistant_versions(rest *r, const char *id, ap_server_reply *reply)
{
    aps_json_writer w;
    int i = rest_graph(r, id);
    if (i < 0) {
        rest_error(reply, 404, NULL, "no assistant %s", id);
        return;
    }
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    assistant_json(r, (size_t)i, 0, &w);
    aps_json_write_array_end(&w);
    rest_reply_array(reply, &aa_assistant_type, &w);
    aps_json_writer_deinit(&w);
}

void rest_assistant_graph(rest *r, const char *id, ap_server_reply *reply)
{
    aps_json_writer w;
    int i = rest_graph(r, id);
    if (i < 0) {
        rest_error(reply, 404, NULL, "no assistant %s", id);
        return;
    }
    /* a script is one node between start and end: what a mock knows of its graph */
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "nodes", 5);
    aps_json_write_array_begin(&w);
    aps_json_write_object_begin(&w);
    write_str(&w, "id", "__start__");
    write_str(&w, "type", "schema");
    aps_json_write_object_end(&w);
    aps_json_write_object_begin(&w);
    write_str(&w, "id", r->graphs[i]);
    write_str(&w, "type", "runnable");
    aps_json_write_object_end(&w);
    aps_json_write_object_begin(&w);
    write_str(&w, "id", "__end__");
    write_str(&w, "type", "schema");
    aps_json_write_object_end(&w);
    aps_json_write_array_end(&w);
    aps_json_write_key(&w, "edges", 5);
    aps_json_write_array_begin(&w);
    aps_json_write_object_begin(&w);
    write_str(&w, "source", "__start__");
    write_str(&w, "target", r->graphs[i]);
    aps_json_write_object_end(&w);
    aps_json_write_object_begin(&w);
    write_str(&w, "source", r->graphs[i]);
    write_str(&w, "target", "__end__");
    aps_json_write_object_end(&w);
    aps_json_write_array_end(&w);
    aps_json_write_object_end(&w);
    rest_reply_typed(reply, 200, &aa_assistant_graph_type, &w);
    aps_json_writer_deinit(&w);
}

void rest_assistant_schemas(rest *r, const char *id, int agent, ap_server_reply *reply)
{
    static const char messages_schema[] =
        "{\"type\":\"object\",\"properties\":{\"messages\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}}}}";
    aps_json_writer w;
    int i = rest_graph(r, id);
    if (i < 0) {
        rest_error(reply, 404, NULL, "no assistant %s", id);
        return;
    }
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    write_str(&w, agent ? "agent_id" : "graph_id", agent ? r->assistant_ids[i] : r->graphs[i]);
    aps_json_write_key(&w, "input_schema", 12);
    write_json(&w, messages_schema, "{}");
    aps_json_write_key(&w, "output_schema", 13);
    write_json(&w, messages_schema, "{}");
    aps_json_write_key(&w, "state_schema", 12);
    write_json(&w, messages_schema, "{}");
    aps_json_write_key(&w, "config_schema", 13);
    write_json(&w, NULL, "{\"type\":\"object\"}");
    aps_json_write_object_end(&w);
    rest_reply_typed(reply, 200, &aa_agent_schema_type, &w);
    aps_json_writer_deinit(&w);
}

/* ---- thread routes ------------------------------------------------------------------------- */

static void reply_thread(rthread *t, unsigned status, ap_server_reply *reply)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    rest_thread_json(t, &w);
    rest_reply_typed(reply, status, &aa_thread_type, &w);
    aps_json_writer_deinit(&w);
}

/*
 * The raw text of member `name` of the request body when it is an object
 * (the body was decoded with its type, which said so), else `{}`: what is
 * kept of metadata, values and store values is the client's own text.
 */
static aps_json_raw body_member(const ap_server_request *req, const char *name, aps_arena *a)
{
    aps_json_raw body = { req->body, req->body_len }, v;
    if (req->body_len == 0 || aps_json_raw_member(body, name, strlen(name), a, &v, NULL) != APS_OK ||
        aps_json_raw_kind(v) != APS_JSON_OBJECT) {
        v.ptr = "{}";
        v.len = 2;
    }
    return v;
}

void rest_threads_create(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_thread_create_t q;
    char id[REST_MAX_ID + 1];
    rthread *t;
    aps_json_raw meta;
    if (rest_decode(req, &aa_thread_create_type, a, &q, reply) != 0)
        return;
    if (q.has_thread_id) {
        if (rest_check_id(q.thread_id.ptr, q.thread_id.len) != 0) {
            rest_error(reply, 422, "/thread_id", "a thread id is 1 to %u bytes of printable UTF-8", REST_MAX_ID);
            return;
        }
        memcpy(id, q.thread_id.ptr, q.thread_id.len);
        id[q.thread_id.len] = '\0';
    }
    meta = body_member(req, "metadata", a);
    pthread_mutex_lock(&r->lock);
    if (!q.has_thread_id)
        rest_uuid(r, id);
    if ((t = rest_thread_find(r, id)) != NULL) {
        if (q.has_if_exists && q.if_exists == AA_THREAD_CREATE_IF_EXISTS_DO_NOTHING)
            reply_thread(t, 200, reply);
        else
            rest_error(reply, 409, "/thread_id", "thread %s exists", id);
    } else if ((t = rest_thread_add(r, id, meta.ptr, meta.len)) == NULL) {
        rest_error(reply, 500, NULL, "no memory for the thread");
    } else {
        reply_thread(t, 200, reply);
        if (reply->status != 200)
            rest_thread_remove(r, t); /* nothing half done */
    }
    pthread_mutex_unlock(&r->lock);
}

static int thread_newer(const rthread *a, const rthread *b)
{
    return a->order > b->order;
}

void rest_threads_search(rest *r, const ap_server_request *req, int count, aps_arena *a, ap_server_reply *reply)
{
    aa_thread_search_request_t q;
    aps_json_writer w;
    rthread *t, **list = NULL;
    size_t n = 0, i, limit = 10, offset = 0, cap = 0;
    aps_json_raw meta, values;
    char status[16] = "";
    if (rest_decode(req, &aa_thread_search_request_type, a, &q, reply) != 0)
        return;
    if (q.has_limit)
        limit = (size_t)q.limit;
    if (q.has_offset)
        offset = (size_t)q.offset;
    meta = body_member(req, "metadata", a);
    values = body_member(req, "values", a);
    if (q.has_status)
        snprintf(status, sizeof status, "%s", aa_thread_status_name(q.status));
    pthread_mutex_lock(&r->lock);
    if (r->be != NULL)
        r->be->load_threads(r);
    for (t = r->threads; t != NULL; t = t->next) {
        if (!matches(t->metadata, meta.ptr, meta.len) || (values.len > 2 && !matches(t->values, values.ptr, values.len)) ||
            (status[0] != '\0' && strcmp(status, t->status) != 0))
            continue;
        if (q.has_ids) {
            for (i = 0; i < q.ids.count; i++)
                if (q.ids.items[i].len == strlen(t->id) && memcmp(q.ids.items[i].ptr, t->id, q.ids.items[i].len) == 0)
                    break;
            if (i == q.ids.count)
                continue;
        }
        if (n == cap) {
            rthread **grown = realloc(list, (cap ? 2 * cap : 16) * sizeof *grown);
            if (grown == NULL)
                break;
            list = grown;
            cap = cap ? 2 * cap : 16;
        }
        list[n++] = t;
    }
    if (count) {
        char text[24];
        snprintf(text, sizeof text, "%zu", n);
        rest_reply_raw(reply, 200, text, strlen(text));
    } else {
        int asc = q.has_sort_order && q.sort_order == AA_THREAD_SEARCH_REQUEST_SORT_ORDER_ASC;
        /* newest first by default (created_at desc), as the reference server lists */
        for (i = 1; i < n; i++) {
            size_t j = i;
            rthread *x = list[i];
            while (j > 0 && (asc ? thread_newer(list[j - 1], x) : thread_newer(x, list[j - 1]))) {
                list[j] = list[j - 1];
                j--;
            }
            list[j] = x;
        }
        aps_json_writer_init(&w, NULL);
        aps_json_write_array_begin(&w);
        for (i = offset; i < n && i < offset + limit; i++)
            rest_thread_json(list[i], &w);
        aps_json_write_array_end(&w);
        rest_reply_array(reply, &aa_thread_type, &w);
        aps_json_writer_deinit(&w);
    }
    pthread_mutex_unlock(&r->lock);
    free(list);
}

void rest_thread_get(rest *r, const char *id, ap_server_reply *reply)
{
    rthread *t;
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, id)) == NULL)
        rest_error(reply, 404, NULL, "no thread %s", id);
    else
        reply_thread(t, 200, reply);
    pthread_mutex_unlock(&r->lock);
}

void rest_thread_delete(rest *r, const char *id, ap_server_reply *reply)
{
    rthread *t;
    int cancel = 0;
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, id)) == NULL) {
        rest_error(reply, 404, NULL, "no thread %s", id);
    } else {
        cancel = t->active[0] != '\0';
        rest_thread_remove(r, t);
        rest_reply_raw(reply, 204, "", 0);
    }
    pthread_mutex_unlock(&r->lock);
    if (cancel && r->hooks.cancel != NULL)
        r->hooks.cancel(r->hooks.user, id);
}

int rest_merge_object(char **into, aps_json_raw add)
{
    aps_arena arena;
    aps_json_reader rd;
    aps_json_writer w;
    aps_json_raw base = { *into != NULL ? *into : "{}", *into != NULL ? strlen(*into) : 2 }, v;
    aps_slice key;
    int more = 0, rc = 0;
    char *text;
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    /* the old members that `add` does not replace, then `add`'s */
    aps_json_raw_reader(&rd, base, &arena);
    if (aps_json_read_object(&rd, NULL) == APS_OK)
        while (aps_json_next_member(&rd, &key, &more, NULL) == APS_OK && more &&
               aps_json_read_raw(&rd, &v, NULL) == APS_OK) {
            aps_json_raw dup;
            char name[256];
            if (key.len < sizeof name) {
                memcpy(name, key.ptr, key.len);
                if (aps_json_raw_member(add, name, key.len, &arena, &dup, NULL) == APS_OK)
                    continue;
            }
            aps_json_write_key(&w, key.ptr, key.len);
            aps_json_write_raw(&w, v);
        }
    aps_json_raw_reader(&rd, add, &arena);
    if (aps_json_read_object(&rd, NULL) == APS_OK)
        while (aps_json_next_member(&rd, &key, &more, NULL) == APS_OK && more &&
               aps_json_read_raw(&rd, &v, NULL) == APS_OK) {
            aps_json_write_key(&w, key.ptr, key.len);
            aps_json_write_raw(&w, v);
        }
    aps_json_write_object_end(&w);
    if (aps_json_writer_status(&w) != APS_OK ||
        (text = rest_strndup(aps_json_writer_data(&w), aps_json_writer_len(&w))) == NULL) {
        rc = -1;
    } else {
        free(*into);
        *into = text;
    }
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&arena);
    return rc;
}

void rest_thread_patch(rest *r, const char *id, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_thread_patch_t q;
    rthread *t;
    if (rest_decode(req, &aa_thread_patch_type, a, &q, reply) != 0)
        return;
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, id)) == NULL) {
        rest_error(reply, 404, NULL, "no thread %s", id);
    } else if (rest_merge_object(&t->metadata, body_member(req, "metadata", a)) != 0) {
        rest_error(reply, 500, NULL, "no memory for the metadata");
    } else {
        rest_now(t->updated);
        reply_thread(t, 200, reply);
    }
    pthread_mutex_unlock(&r->lock);
}

void rest_thread_copy(rest *r, const char *id, ap_server_reply *reply)
{
    rthread *t, *copy;
    char nid[40];
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, id)) == NULL) {
        rest_error(reply, 404, NULL, "no thread %s", id);
    } else {
        rest_uuid(r, nid);
        if ((copy = rest_thread_add(r, nid, t->metadata, strlen(t->metadata))) == NULL) {
            rest_error(reply, 500, NULL, "no memory for the thread");
        } else {
            if (t->values != NULL)
                rest_thread_push_state(r, copy, t->values, strlen(t->values), NULL);
            reply_thread(copy, 200, reply);
        }
    }
    pthread_mutex_unlock(&r->lock);
}

/*
 * The state of a thread this process has no record of: the latest root
 * values of its protocol log, which replicas share on Redis (so that any
 * replica answers GET /state of a run another one plays, as before the
 * REST API). 404 when the log has none either.
 */
static void shared_state(rest *r, const char *id, ap_server_reply *reply)
{
    char *json = NULL;
    size_t len = 0;
    aps_slice tid;
    aps_json_writer w;
    tid.ptr = id;
    tid.len = strlen(id);
    if (r->srv == NULL || ap_server_state(r->srv, tid, &json, &len) != APS_OK) {
        rest_error(reply, 404, NULL, "no thread %s", id);
        return;
    }
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "values", 6);
    aps_json_write_raw(&w, (aps_json_raw){ json, len });
    aps_json_write_key(&w, "next", 4);
    aps_json_write_array_begin(&w);
    aps_json_write_array_end(&w);
    aps_json_write_key(&w, "tasks", 5);
    aps_json_write_array_begin(&w);
    aps_json_write_array_end(&w);
    aps_json_write_key(&w, "metadata", 8);
    aps_json_write_object_begin(&w);
    aps_json_write_object_end(&w);
    aps_json_write_key(&w, "created_at", 10);
    aps_json_write_null(&w);
    aps_json_write_object_end(&w);
    free(json);
    rest_reply_typed(reply, 200, &aa_thread_state_type, &w);
    aps_json_writer_deinit(&w);
}

void rest_thread_state(rest *r, const char *id, const char *checkpoint, ap_server_reply *reply)
{
    rthread *t;
    aps_json_writer w;
    const rstate *s = NULL;
    size_t i;
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, id)) == NULL) {
        pthread_mutex_unlock(&r->lock);
        if (checkpoint == NULL)
            shared_state(r, id, reply);
        else
            rest_error(reply, 404, NULL, "no thread %s", id);
        return;
    }
    if (checkpoint != NULL) {
        for (i = 0; i < t->nhist && s == NULL; i++)
            if (strcmp(t->hist[i].checkpoint, checkpoint) == 0)
                s = &t->hist[i];
        if (s == NULL) {
            rest_error(reply, 404, NULL, "no checkpoint %s on thread %s", checkpoint, id);
            pthread_mutex_unlock(&r->lock);
            return;
        }
    }
    aps_json_writer_init(&w, NULL);
    rest_state_json(t, s, &w);
    pthread_mutex_unlock(&r->lock);
    rest_reply_typed(reply, 200, &aa_thread_state_type, &w);
    aps_json_writer_deinit(&w);
}

/* POST /threads/{id}/state/checkpoint: the state of the body's `checkpoint` (its checkpoint_id). */
void rest_thread_state_at(rest *r, const char *id, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_thread_history_request_t q; /* (the same `checkpoint` member, and the rest open) */
    char cp[64];
    if (rest_decode(req, &aa_thread_history_request_type, a, &q, reply) != 0)
        return;
    if (!q.has_checkpoint || !q.checkpoint.has_checkpoint_id || q.checkpoint.checkpoint_id.len >= sizeof cp) {
        rest_error(reply, 422, "/checkpoint/checkpoint_id", "the body names a checkpoint by its checkpoint_id");
        return;
    }
    memcpy(cp, q.checkpoint.checkpoint_id.ptr, q.checkpoint.checkpoint_id.len);
    cp[q.checkpoint.checkpoint_id.len] = '\0';
    rest_thread_state(r, id, cp, reply);
}

void rest_thread_update_state(rest *r, const char *id, const ap_server_request *req, aps_arena *a,
                              ap_server_reply *reply)
{
    aa_thread_state_update_t q;
    rthread *t;
    aps_json_writer w;
    if (rest_decode(req, &aa_thread_state_update_type, a, &q, reply) != 0)
        return;
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, id)) == NULL) {
        rest_error(reply, 404, NULL, "no thread %s", id);
    } else if (t->active[0] != '\0' && strcmp(t->status, "busy") == 0) {
        rest_error(reply, 409, NULL, "thread %s has a run in progress", id);
    } else {
        char *values = t->values != NULL ? rest_strndup(t->values, strlen(t->values)) : NULL;
        aps_json_raw add = body_member(req, "values", a);
        if (rest_merge_object(&values, add) != 0) {
            rest_error(reply, 500, NULL, "no memory for the values");
        } else {
            rest_thread_push_state(r, t, values, strlen(values), NULL);
            aps_json_writer_init(&w, NULL);
            aps_json_write_object_begin(&w);
            aps_json_write_key(&w, "checkpoint", 10);
            aps_json_write_object_begin(&w);
            write_str(&w, "thread_id", t->id);
            write_str(&w, "checkpoint_ns", "");
            write_str(&w, "checkpoint_id", t->checkpoint);
            aps_json_write_object_end(&w);
            aps_json_write_object_end(&w);
            rest_reply_typed(reply, 200, &aa_thread_state_update_answer_type, &w);
            aps_json_writer_deinit(&w);
        }
        free(values);
    }
    pthread_mutex_unlock(&r->lock);
}

void rest_thread_history(rest *r, const char *id, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_thread_history_request_t q;
    rthread *t;
    aps_json_writer w;
    long limit = 10;
    size_t i, n = 0;
    if (req->method == AP_SERVER_POST) {
        if (rest_decode(req, &aa_thread_history_request_type, a, &q, reply) != 0)
            return;
        if (q.has_limit)
            limit = (long)q.limit;
    } else if ((limit = rest_query_count(req, "limit", 10, reply)) < 0) {
        return;
    }
    pthread_mutex_lock(&r->lock);
    if ((t = rest_thread_find(r, id)) == NULL) {
        rest_error(reply, 404, NULL, "no thread %s", id);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    for (i = t->nhist; i > 0 && n < (size_t)limit; i--, n++)
        rest_state_json(t, &t->hist[i - 1], &w); /* the newest first */
    aps_json_write_array_end(&w);
    pthread_mutex_unlock(&r->lock);
    rest_reply_array(reply, &aa_thread_state_type, &w);
    aps_json_writer_deinit(&w);
}

/* ---- the store ------------------------------------------------------------------------------- */

void rest_item_free(ritem *it)
{
    size_t i;
    for (i = 0; i < it->nlabels; i++)
        free(it->labels[i]);
    free(it->labels);
    free(it->key);
    free(it->value);
    free(it->saved);
    free(it);
}

char *rest_item_name(const ritem *it)
{
    aps_json_writer w;
    size_t i;
    char *name = NULL;
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    for (i = 0; i < it->nlabels; i++)
        aps_json_write_string(&w, it->labels[i], strlen(it->labels[i]));
    aps_json_write_string(&w, it->key, strlen(it->key));
    aps_json_write_array_end(&w);
    if (aps_json_writer_status(&w) == APS_OK)
        name = rest_strndup(aps_json_writer_data(&w), aps_json_writer_len(&w));
    aps_json_writer_deinit(&w);
    return name;
}

static int labels_equal(const ritem *it, const aps_slice *labels, size_t n)
{
    size_t i;
    if (it->nlabels != n)
        return 0;
    for (i = 0; i < n; i++)
        if (strlen(it->labels[i]) != labels[i].len || memcmp(it->labels[i], labels[i].ptr, labels[i].len) != 0)
            return 0;
    return 1;
}

static ritem *item_find(rest *r, const aps_slice *labels, size_t n, aps_slice key)
{
    ritem *it;
    if (r->be != NULL)
        r->be->load_items(r, labels, n, &key);
    for (it = r->items; it != NULL; it = it->next)
        if (labels_equal(it, labels, n) && strlen(it->key) == key.len && memcmp(it->key, key.ptr, key.len) == 0)
            return it;
    return NULL;
}

static void item_json(const ritem *it, aps_json_writer *w)
{
    size_t i;
    aps_json_write_object_begin(w);
    aps_json_write_key(w, "namespace", 9);
    aps_json_write_array_begin(w);
    for (i = 0; i < it->nlabels; i++)
        aps_json_write_string(w, it->labels[i], strlen(it->labels[i]));
    aps_json_write_array_end(w);
    write_str(w, "key", it->key);
    aps_json_write_key(w, "value", 5);
    write_json(w, it->value, "{}");
    write_str(w, "created_at", it->created);
    write_str(w, "updated_at", it->updated);
    aps_json_write_object_end(w);
}

/* Refuses a namespace the store cannot hold: empty, or with an empty label or one with a '.'. 0 or -1. */
static int check_namespace(const aa_store_namespace_t *ns, int allow_empty, ap_server_reply *reply)
{
    size_t i;
    char pointer[48];
    if (ns->count == 0 && !allow_empty) {
        rest_error(reply, 422, "/namespace", "a namespace has at least one label");
        return -1;
    }
    for (i = 0; i < ns->count; i++)
        if (ns->items[i].len == 0 || memchr(ns->items[i].ptr, '.', ns->items[i].len) != NULL ||
            aps_utf8_check((const uint8_t *)ns->items[i].ptr, ns->items[i].len) != SIZE_MAX) {
            snprintf(pointer, sizeof pointer, "/namespace/%zu", i);
            rest_error(reply, 422, pointer, "a namespace label is not empty and has no '.'");
            return -1;
        }
    return 0;
}

void rest_store_put(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_store_put_request_t q;
    ritem *it;
    aps_json_raw value;
    size_t i;
    if (rest_decode(req, &aa_store_put_request_type, a, &q, reply) != 0 || check_namespace(&q.namespace_, 0, reply) != 0)
        return;
    if (q.key.len == 0) {
        rest_error(reply, 422, "/key", "a key is not empty");
        return;
    }
    value = body_member(req, "value", a);
    pthread_mutex_lock(&r->lock);
    if ((it = item_find(r, q.namespace_.items, q.namespace_.count, q.key)) != NULL) {
        char *v = rest_strndup(value.ptr, value.len);
        if (v == NULL) {
            rest_error(reply, 500, NULL, "no memory for the value");
        } else {
            free(it->value);
            it->value = v;
            rest_now(it->updated);
            rest_reply_raw(reply, 204, "", 0);
        }
    } else if ((it = calloc(1, sizeof *it)) == NULL ||
               (it->labels = calloc(q.namespace_.count, sizeof *it->labels)) == NULL) {
        free(it);
        rest_error(reply, 500, NULL, "no memory for the item");
    } else {
        int ok = (it->key = rest_strndup(q.key.ptr, q.key.len)) != NULL &&
                 (it->value = rest_strndup(value.ptr, value.len)) != NULL;
        for (i = 0; ok && i < q.namespace_.count; i++, it->nlabels++)
            ok = (it->labels[i] = rest_strndup(q.namespace_.items[i].ptr, q.namespace_.items[i].len)) != NULL;
        if (!ok) {
            rest_item_free(it); /* nothing half done */
            rest_error(reply, 500, NULL, "no memory for the item");
        } else {
            rest_now(it->created);
            strcpy(it->updated, it->created);
            it->order = rest_next_order(r);
            it->touched = 1;
            it->next = r->items;
            r->items = it;
            rest_reply_raw(reply, 204, "", 0);
        }
    }
    pthread_mutex_unlock(&r->lock);
}

/* The labels of a dotted namespace argument into `labels` (pointing into `text`); their count. */
static size_t split_dotted(char *text, aps_slice *labels, size_t cap)
{
    size_t n = 0;
    char *p = text;
    if (*p == '\0')
        return 0;
    while (n < cap) {
        char *dot = strchr(p, '.');
        labels[n].ptr = p;
        labels[n].len = dot != NULL ? (size_t)(dot - p) : strlen(p);
        n++;
        if (dot == NULL)
            break;
        p = dot + 1;
    }
    return n;
}

void rest_store_get(rest *r, const ap_server_request *req, ap_server_reply *reply)
{
    char ns[1024], key[1024];
    aps_slice labels[32], k;
    size_t n;
    ritem *it;
    aps_json_writer w;
    if (!rest_query(req->query, "key", key, sizeof key)) {
        rest_error(reply, 422, "/key", "?key= names the item");
        return;
    }
    if (!rest_query(req->query, "namespace", ns, sizeof ns))
        ns[0] = '\0';
    n = split_dotted(ns, labels, 32);
    k.ptr = key;
    k.len = strlen(key);
    pthread_mutex_lock(&r->lock);
    if ((it = item_find(r, labels, n, k)) == NULL) {
        rest_reply_raw(reply, 200, "null", 4); /* what the reference answers, and the client reads as none */
    } else {
        aps_json_writer_init(&w, NULL);
        item_json(it, &w);
        rest_reply_typed(reply, 200, &aa_item_type, &w);
        aps_json_writer_deinit(&w);
    }
    pthread_mutex_unlock(&r->lock);
}

void rest_store_delete(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_store_delete_request_t q;
    ritem **p;
    if (rest_decode(req, &aa_store_delete_request_type, a, &q, reply) != 0)
        return;
    pthread_mutex_lock(&r->lock);
    if (r->be != NULL)
        r->be->load_items(r, q.namespace_.items, q.namespace_.count, &q.key);
    for (p = &r->items; *p != NULL; p = &(*p)->next)
        if (labels_equal(*p, q.namespace_.items, q.namespace_.count) && strlen((*p)->key) == q.key.len &&
            memcmp((*p)->key, q.key.ptr, q.key.len) == 0) {
            ritem *gone = *p;
            *p = gone->next;
            if (r->be != NULL) {
                char *name = rest_item_name(gone);
                if (name != NULL)
                    r->be->forget(r, 'i', name, NULL);
                free(name);
            }
            rest_item_free(gone);
            break;
        }
    pthread_mutex_unlock(&r->lock);
    rest_reply_raw(reply, 204, "", 0); /* deleting what is not there is no error (the reference's too) */
}

static int has_prefix(const ritem *it, const aps_slice *labels, size_t n)
{
    size_t i;
    if (it->nlabels < n)
        return 0;
    for (i = 0; i < n; i++)
        if (strlen(it->labels[i]) != labels[i].len || memcmp(it->labels[i], labels[i].ptr, labels[i].len) != 0)
            return 0;
    return 1;
}

void rest_store_search(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_store_search_request_t q;
    ritem *it;
    aps_json_writer w;
    aps_json_raw filter;
    size_t seen = 0, listed = 0, limit = 10, offset = 0;
    if (rest_decode(req, &aa_store_search_request_type, a, &q, reply) != 0)
        return;
    if (q.has_limit)
        limit = (size_t)q.limit;
    if (q.has_offset)
        offset = (size_t)q.offset;
    filter = body_member(req, "filter", a);
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "items", 5);
    aps_json_write_array_begin(&w);
    pthread_mutex_lock(&r->lock);
    if (r->be != NULL)
        r->be->load_items(r, NULL, 0, NULL);
    for (it = r->items; it != NULL && listed < limit; it = it->next) {
        if (q.has_namespace_prefix && !q.namespace_prefix_is_null &&
            !has_prefix(it, q.namespace_prefix.items, q.namespace_prefix.count))
            continue;
        if (!matches(it->value, filter.ptr, filter.len))
            continue;
        if (q.has_query && !q.query_is_null && q.query.len > 0) {
            /* a text match on the value's JSON: no vector search here */
            char *needle = rest_strndup(q.query.ptr, q.query.len);
            int found = needle != NULL && strstr(it->value, needle) != NULL;
            free(needle);
            if (!found)
                continue;
        }
        if (seen++ < offset)
            continue;
        item_json(it, &w);
        listed++;
    }
    pthread_mutex_unlock(&r->lock);
    aps_json_write_array_end(&w);
    aps_json_write_object_end(&w);
    rest_reply_typed(reply, 200, &aa_search_items_response_type, &w);
    aps_json_writer_deinit(&w);
}

void rest_store_namespaces(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply)
{
    aa_store_list_namespaces_request_t q;
    ritem *it;
    aps_json_writer w, seen_w;
    size_t seen = 0, listed = 0, limit = 100, offset = 0, i;
    char **done = NULL;
    size_t ndone = 0;
    if (rest_decode(req, &aa_store_list_namespaces_request_type, a, &q, reply) != 0)
        return;
    if (q.has_limit)
        limit = (size_t)q.limit;
    if (q.has_offset)
        offset = (size_t)q.offset;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "namespaces", 10);
    aps_json_write_array_begin(&w);
    pthread_mutex_lock(&r->lock);
    if (r->be != NULL)
        r->be->load_items(r, NULL, 0, NULL);
    for (it = r->items; it != NULL && listed < limit; it = it->next) {
        size_t depth = it->nlabels, k;
        char *text;
        int dup = 0;
        if (q.has_prefix && !has_prefix(it, q.prefix.items, q.prefix.count))
            continue;
        if (q.has_suffix) {
            if (it->nlabels < q.suffix.count)
                continue;
            for (k = 0; k < q.suffix.count; k++) {
                const char *l = it->labels[it->nlabels - q.suffix.count + k];
                if (strlen(l) != q.suffix.items[k].len || memcmp(l, q.suffix.items[k].ptr, q.suffix.items[k].len) != 0)
                    break;
            }
            if (k < q.suffix.count)
                continue;
        }
        if (q.has_max_depth && depth > (size_t)q.max_depth)
            depth = (size_t)q.max_depth;
        /* each namespace once (truncated to max_depth, several items may share one) */
        aps_json_writer_init(&seen_w, NULL);
        aps_json_write_array_begin(&seen_w);
        for (k = 0; k < depth; k++)
            aps_json_write_string(&seen_w, it->labels[k], strlen(it->labels[k]));
        aps_json_write_array_end(&seen_w);
        text = rest_strndup(aps_json_writer_data(&seen_w), aps_json_writer_len(&seen_w));
        aps_json_writer_deinit(&seen_w);
        if (text == NULL)
            continue;
        for (i = 0; i < ndone && !dup; i++)
            dup = strcmp(done[i], text) == 0;
        if (dup) {
            free(text);
            continue;
        }
        {
            char **grown = realloc(done, (ndone + 1) * sizeof *grown);
            if (grown == NULL) {
                free(text);
                continue;
            }
            done = grown;
            done[ndone++] = text;
        }
        if (seen++ < offset)
            continue;
        write_json(&w, text, "[]");
        listed++;
    }
    pthread_mutex_unlock(&r->lock);
    for (i = 0; i < ndone; i++)
        free(done[i]);
    free(done);
    aps_json_write_array_end(&w);
    aps_json_write_object_end(&w);
    rest_reply_typed(reply, 200, &aa_list_namespace_response_type, &w);
    aps_json_writer_deinit(&w);
}
