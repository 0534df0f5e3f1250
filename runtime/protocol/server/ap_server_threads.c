/*
 * ap_server_threads.c - the threads of the thread server (ap_server.h):
 * each a replay log of its events, kept as SSE records, numbered and
 * stamped as they are published from any thread of the product's, and the
 * latest root `values` state. ap_server.c serves them.
 */
#include "server_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ap_replay.h"
#include "ap_route.h"

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

void server_log(ap_server *s, const char *fmt, ...)
{
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (s->opt.log != NULL)
        s->opt.log(s->opt.user, line);
    else
        fprintf(stderr, "ap_server: %s\n", line);
}

static void thread_free(srv_thread *t)
{
    aps_replay_store_close(t->log);
    pthread_mutex_destroy(&t->lock);
    aps_json_writer_deinit(&t->json);
    free(t->record);
    free(t->state);
    free(t->id);
    free(t);
}

srv_thread *server_thread(ap_server *s, const char *id, size_t len, int create)
{
    srv_thread *t;
    pthread_mutex_lock(&s->lock);
    for (t = s->threads; t != NULL; t = t->next)
        if (t->id_len == len && memcmp(t->id, id, len) == 0)
            break;
    if (t == NULL && create && s->nthreads < s->opt.max_threads) {
        t = calloc(1, sizeof *t);
        if (t != NULL && (t->id = malloc(len + 1)) != NULL &&
            aps_replay_store_open_memory(&t->log, &s->opt.replay, NULL) == APS_OK) {
            memcpy(t->id, id, len);
            t->id[len] = '\0';
            t->id_len = len;
            pthread_mutex_init(&t->lock, NULL);
            aps_json_writer_init(&t->json, NULL);
            t->next = s->threads;
            s->threads = t;
            s->nthreads++;
        } else if (t != NULL) {
            free(t->id);
            free(t);
            t = NULL;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return t;
}

/* ---- publishing ------------------------------------------------------------------ */

static int field_ok(aps_slice v)
{
    size_t i;
    for (i = 0; i < v.len; i++)
        if (v.ptr[i] == '\n' || v.ptr[i] == '\r' || v.ptr[i] == '\0')
            return 0;
    return 1;
}

/* Appends to the thread's record buffer; -1 out of memory. */
static int record_put(srv_thread *t, size_t *len, const char *p, size_t n)
{
    if (*len + n > t->record_cap) {
        size_t cap = t->record_cap ? t->record_cap : 1024;
        char *grown;
        while (cap < *len + n)
            cap *= 2;
        if ((grown = realloc(t->record, cap)) == NULL)
            return -1;
        t->record = grown;
        t->record_cap = cap;
    }
    memcpy(t->record + *len, p, n);
    *len += n;
    return 0;
}

/* The thread for a publish in *t, made when missing. */
static aps_status publish_thread(ap_server *s, aps_slice thread_id, srv_thread **t, aps_error *err)
{
    if (thread_id.ptr == NULL || thread_id.len == 0 || thread_id.len >= MAX_ID)
        return aps_error_set(err, APS_E_ARGUMENT, 0, "a thread id of 1-%u bytes", MAX_ID - 1);
    if ((*t = server_thread(s, thread_id.ptr, thread_id.len, 1)) == NULL)
        return aps_error_set(err, APS_E_LIMIT, 0, "too many threads (max_threads %zu)", s->opt.max_threads);
    return APS_OK;
}

/*
 * The common end of both publish calls (under t->lock): frames the event
 * whose JSON is in t->json as an SSE record, appends it with `meta` and
 * keeps a root values event's `data` as the state.
 */
static aps_status publish_record(srv_thread *t, aps_slice method, aps_slice event_id, const aps_replay_meta *meta,
                                 aps_json_raw state, uint64_t *seq, aps_error *err)
{
    size_t len = 0;
    aps_status st;
    if (record_put(t, &len, "id: ", 4) != 0 || record_put(t, &len, event_id.ptr, event_id.len) != 0 ||
        record_put(t, &len, "\nevent: ", 8) != 0 || record_put(t, &len, method.ptr, method.len) != 0 ||
        record_put(t, &len, "\ndata: ", 7) != 0 ||
        record_put(t, &len, aps_json_writer_data(&t->json), aps_json_writer_len(&t->json)) != 0 ||
        record_put(t, &len, "\n\n", 2) != 0)
        return aps_error_set(err, APS_E_NOMEM, 0, "no memory for the event");
    if ((st = aps_replay_store_append(t->log, t->record, len, meta, seq, err)) != APS_OK)
        return st;
    if (state.ptr != NULL && meta->channel == APS_CHANNEL_VALUES && meta->ns.count == 0) {
        char *copy = malloc(state.len + 1);
        if (copy != NULL) {
            memcpy(copy, state.ptr, state.len);
            copy[state.len] = '\0';
            free(t->state);
            t->state = copy;
            t->state_len = state.len;
        }
    }
    __atomic_store_n(&t->last_seq, *seq, __ATOMIC_RELEASE);
    return APS_OK;
}

/* Where an event's params keep its timestamp; NULL for an unknown kind. */
static ap_timestamp_t *timestamp_of(ap_event_t *ev)
{
    ap_event_data_t *d = &ev->event_data;
    switch (d->kind) {
    case AP_EVENT_DATA_LIFECYCLE_EVENT: return &d->u.lifecycle_event.params.timestamp;
    case AP_EVENT_DATA_MESSAGES_EVENT: return &d->u.messages_event.params.timestamp;
    case AP_EVENT_DATA_TOOLS_EVENT: return &d->u.tools_event.params.timestamp;
    case AP_EVENT_DATA_INPUT_EVENT: return &d->u.input_event.params.timestamp;
    case AP_EVENT_DATA_VALUES_EVENT: return &d->u.values_event.params.timestamp;
    case AP_EVENT_DATA_UPDATES_EVENT: return &d->u.updates_event.params.timestamp;
    case AP_EVENT_DATA_CHECKPOINTS_EVENT: return &d->u.checkpoints_event.params.timestamp;
    case AP_EVENT_DATA_TASKS_EVENT: return &d->u.tasks_event.params.timestamp;
    case AP_EVENT_DATA_CUSTOM_EVENT: return &d->u.custom_event.params.timestamp;
    default: return NULL;
    }
}

/* After an append: the caller learns its seq, and the loop wakes to send it. */
static void published(ap_server *s, uint64_t s_new, uint64_t *seq)
{
    if (seq != NULL)
        *seq = s_new;
    if (s->ctx != NULL) /* (a server not started: the command path's fuzz target) */
        lws_cancel_service(s->ctx);
}

aps_status ap_server_publish(ap_server *s, aps_slice thread_id, ap_message_t *msg, uint64_t *seq, aps_error *err)
{
    srv_thread *t;
    ap_event_t *ev;
    aps_replay_meta meta;
    aps_encode_options eo;
    aps_slice method;
    aps_json_raw state = { NULL, 0 };
    ap_timestamp_t *ts;
    char seq_text[24];
    int own_id;
    uint64_t s_new = 0;
    aps_status st;
    if (s == NULL || msg == NULL || msg->kind != AP_MESSAGE_EVENT)
        return aps_error_set(err, APS_E_ARGUMENT, 0, "publish takes an event");
    ev = &msg->u.event;
    method = ap_event_method(ev);
    if (method.len == 0 || (ev->has_event_id && (!field_ok(ev->event_id) || ev->event_id.len == 0)))
        return aps_error_set(err, APS_E_ARGUMENT, 0, "an event of a known method, with an eventId without line breaks");
    if ((st = publish_thread(s, thread_id, &t, err)) != APS_OK)
        return st;
    memset(&eo, 0, sizeof eo);
    eo.key_case = s->opt.key_case;
    if ((ts = timestamp_of(ev)) != NULL && *ts == 0)
        *ts = now_ms();
    if (ev->event_data.kind == AP_EVENT_DATA_VALUES_EVENT)
        state = ev->event_data.u.values_event.params.data;
    pthread_mutex_lock(&t->lock);
    ev->has_seq = true;
    ev->seq = t->last_seq + 1;
    own_id = !ev->has_event_id;
    if (own_id) {
        snprintf(seq_text, sizeof seq_text, "%" PRIu64, ev->seq);
        ev->has_event_id = true;
        ev->event_id.ptr = seq_text;
        ev->event_id.len = strlen(seq_text);
    }
    aps_json_writer_reset(&t->json);
    st = ap_message_encode_opts(msg, &t->json, &eo, err);
    if (st == APS_OK) {
        ap_event_replay_meta(ev, &meta);
        st = publish_record(t, method, ev->event_id, &meta, state, &s_new, err);
    }
    pthread_mutex_unlock(&t->lock);
    if (own_id) { /* the caller's message must not point at this stack frame */
        ev->has_event_id = false;
        ev->event_id.ptr = NULL;
        ev->event_id.len = 0;
    }
    if (st == APS_OK)
        published(s, s_new, seq);
    return st;
}

/* Whether `key` is one of the spellings in `names` (NULL-terminated). */
static int key_is(aps_slice key, const char *const *names)
{
    for (; *names != NULL; names++)
        if (key.len == strlen(*names) && memcmp(key.ptr, *names, key.len) == 0)
            return 1;
    return 0;
}

static void write_key(aps_json_writer *w, const char *schema, const char *snake, aps_key_case kc)
{
    const char *k = kc == APS_CASE_SCHEMA ? schema : snake;
    aps_json_write_key(w, k, strlen(k));
}

aps_status ap_server_publish_json(ap_server *s, aps_slice thread_id, const char *json, size_t len,
                                  aps_slice run_id, uint64_t *seq, aps_error *err)
{
    /* written afresh, so the event's own are left out: runId only when one is given */
    static const char *const stamped[] = { "seq", "eventId", "event_id", "type", NULL };
    static const char *const run_keys[] = { "runId", "run_id", NULL };
    static const char *const timestamp[] = { "timestamp", NULL };
    srv_thread *t;
    aps_arena arena;
    aps_json_reader r, pr;
    aps_json_raw root = { json, len }, params, data = { NULL, 0 }, value;
    aps_replay_meta meta;
    aps_slice method, key;
    char seq_text[24];
    uint64_t s_new = 0;
    int more;
    aps_status st = APS_OK;
    if (s == NULL || json == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, 0, "publish_json takes an event's JSON");
    if ((st = publish_thread(s, thread_id, &t, err)) != APS_OK)
        return st;
    aps_arena_init(&arena, NULL);
    if (ap_event_replay_meta_text(json, len, NULL, &arena, &meta, err) != APS_OK ||
        aps_json_raw_member(root, "method", 6, &arena, &value, NULL) != APS_OK ||
        (aps_json_raw_reader(&r, value, &arena), aps_json_read_string(&r, &method, NULL)) != APS_OK ||
        !field_ok(method) || method.len == 0 ||
        aps_json_raw_member(root, "params", 6, &arena, &params, NULL) != APS_OK) {
        aps_arena_deinit(&arena);
        return aps_error_set(err, APS_E_SYNTAX, 0, "not an event: a JSON object with a string `method` and "
                                                   "`params.namespace` is needed");
    }
    pthread_mutex_lock(&t->lock);
    snprintf(seq_text, sizeof seq_text, "%" PRIu64, t->last_seq + 1);
    aps_json_writer_reset(&t->json);
    aps_json_write_object_begin(&t->json);
    aps_json_write_key(&t->json, "type", 4);
    aps_json_write_string(&t->json, "event", 5);
    write_key(&t->json, "eventId", "event_id", s->opt.key_case);
    aps_json_write_string(&t->json, seq_text, strlen(seq_text));
    aps_json_write_key(&t->json, "seq", 3);
    aps_json_write_uint64(&t->json, t->last_seq + 1);
    if (run_id.ptr != NULL) {
        write_key(&t->json, "runId", "run_id", s->opt.key_case);
        aps_json_write_string(&t->json, run_id.ptr, run_id.len);
    }
    /* every other member as written; params with a fresh timestamp */
    aps_json_raw_reader(&r, root, &arena);
    if (aps_json_read_object(&r, NULL) != APS_OK)
        st = APS_E_SYNTAX;
    while (st == APS_OK && aps_json_next_member(&r, &key, &more, NULL) == APS_OK && more) {
        if (key_is(key, stamped) || (run_id.ptr != NULL && key_is(key, run_keys))) {
            st = aps_json_skip(&r, NULL);
            continue;
        }
        aps_json_write_key(&t->json, key.ptr, key.len);
        if (key.len != 6 || memcmp(key.ptr, "params", 6) != 0) {
            st = aps_json_read_raw(&r, &value, NULL);
            if (st == APS_OK)
                aps_json_write_raw(&t->json, value);
            continue;
        }
        st = aps_json_skip(&r, NULL);
        aps_json_raw_reader(&pr, params, &arena);
        if (st == APS_OK && (st = aps_json_read_object(&pr, NULL)) == APS_OK) {
            aps_json_write_object_begin(&t->json);
            while (st == APS_OK && aps_json_next_member(&pr, &key, &more, NULL) == APS_OK && more) {
                if (key_is(key, timestamp)) {
                    st = aps_json_skip(&pr, NULL);
                    continue;
                }
                aps_json_write_key(&t->json, key.ptr, key.len);
                if ((st = aps_json_read_raw(&pr, &value, NULL)) == APS_OK)
                    aps_json_write_raw(&t->json, value);
                if (key.len == 4 && memcmp(key.ptr, "data", 4) == 0)
                    data = value;
            }
            aps_json_write_key(&t->json, "timestamp", 9);
            aps_json_write_uint64(&t->json, now_ms());
            aps_json_write_object_end(&t->json);
        }
    }
    aps_json_write_object_end(&t->json);
    if (st == APS_OK && aps_json_writer_finish(&t->json, err) == APS_OK) {
        aps_slice id;
        id.ptr = seq_text;
        id.len = strlen(seq_text);
        meta.event_id = id;
        st = publish_record(t, method, id, &meta, data, &s_new, err);
    } else if (st != APS_OK) {
        st = aps_error_set(err, APS_E_SYNTAX, 0, "the event's JSON could not be read again");
    } else {
        st = APS_E_SYNTAX;
    }
    pthread_mutex_unlock(&t->lock);
    aps_arena_deinit(&arena);
    if (st == APS_OK)
        published(s, s_new, seq);
    return st;
}

aps_status ap_server_state(ap_server *s, aps_slice thread_id, char **json, size_t *len)
{
    srv_thread *t = s != NULL ? server_thread(s, thread_id.ptr, thread_id.len, 0) : NULL;
    aps_status st = APS_E_NOT_FOUND;
    *json = NULL;
    *len = 0;
    if (t == NULL)
        return st;
    pthread_mutex_lock(&t->lock);
    if (t->state != NULL && (*json = malloc(t->state_len + 1)) != NULL) {
        memcpy(*json, t->state, t->state_len + 1);
        *len = t->state_len;
        st = APS_OK;
    }
    pthread_mutex_unlock(&t->lock);
    return st;
}


void server_threads_free(ap_server *s)
{
    srv_thread *t;
    while ((t = s->threads) != NULL) {
        s->threads = t->next;
        thread_free(t);
    }
}
