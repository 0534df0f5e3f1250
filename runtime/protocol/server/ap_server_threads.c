/*
 * ap_server_threads.c - the threads of the thread server (ap_server.h):
 * each a replay log of its events (in memory, or shared by replicas through
 * the product's open_log), stamped as they are published from any thread
 * of the product's, and the latest root `values` state. ap_server.c serves
 * them. How the log keeps an event, and why: ap_server_records.c.
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

#define WATCH_MS 500u /* a watcher's longest wait: how soon it sees ap_server_stop */

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

size_t server_utf8_char(const unsigned char *p, size_t n)
{
    size_t len, i;
    unsigned cp;
    if (n == 0)
        return 0;
    if (p[0] < 0x80)
        return p[0] >= 0x20 && p[0] != 0x7f ? 1 : 0;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2, cp = p[0] & 0x1fu;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        len = 3, cp = p[0] & 0x0fu;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        len = 4, cp = p[0] & 0x07u;
    else
        return 0;
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3fu);
    }
    /* overlong, surrogates, beyond U+10FFFF, and the C1 controls */
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff) ||
        (cp >= 0x80 && cp < 0xa0))
        return 0;
    return len;
}

void server_escape(char *out, size_t cap, const char *in, size_t n)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t o = 0, i = 0;
    if (cap == 0)
        return;
    while (i < n && o + 5 < cap) {
        size_t k = server_utf8_char(p + i, n - i);
        if (k > 0 && p[i] != '\\') {
            if (o + k + 1 > cap)
                break;
            memcpy(out + o, p + i, k);
            o += k;
            i += k;
        } else {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", p[i]);
            i++;
        }
    }
    out[o] = '\0';
}

void server_log(ap_server *s, const char *fmt, ...)
{
    char raw[768], line[768 * 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    server_escape(line, sizeof line, raw, strlen(raw));
    if (s->opt.log != NULL)
        s->opt.log(s->opt.user, line);
    else
        fprintf(stderr, "ap_server: %s\n", line);
}

/* Ends a thread's watcher, if it has one, and waits for it. */
static void unwatch(srv_thread *t)
{
    if (!t->watching)
        return;
    __atomic_store_n(&t->unwatch, 1, __ATOMIC_RELEASE);
    pthread_join(t->watcher, NULL);
    t->watching = 0;
}

static void thread_free(srv_thread *t)
{
    unwatch(t);
    aps_replay_store_close(t->watch);
    if (t->writer != t->log)
        aps_replay_store_close(t->writer);
    aps_replay_store_close(t->log);
    pthread_mutex_destroy(&t->lock);
    aps_json_writer_deinit(&t->json);
    free(t->record);
    free(t->state);
    free(t->id);
    free(t);
}

void server_wake(ap_server *s)
{
    if (s != NULL && s->ctx != NULL && /* (no server, or one not started: the fuzz targets) */
        !__atomic_exchange_n(&s->wake_pending, 1, __ATOMIC_ACQ_REL))
        lws_cancel_service(s->ctx);
}

/*
 * A shared log's watcher: blocks until any replica appends after the last
 * seq it saw, then publishes the log's last seq to the loop and wakes it.
 * A log it cannot reach is logged once and retried every WATCH_MS.
 */
static void *watch_main(void *arg)
{
    srv_thread *t = arg;
    uint64_t seen = __atomic_load_n(&t->last_seq, __ATOMIC_ACQUIRE);
    int failing = 0;
    while (!__atomic_load_n(&t->unwatch, __ATOMIC_ACQUIRE)) {
        aps_error err = APS_ERROR_INIT;
        aps_replay_stats stats;
        aps_replay_cursor cur;
        aps_replay_start from;
        aps_status st = aps_replay_store_stats_get(t->watch, &stats, &err);
        if (st == APS_OK && stats.last_seq != seen) {
            /* exact, not the larger: a log Redis lost restarts lower (its readers are told they missed) */
            seen = stats.last_seq;
            __atomic_store_n(&t->last_seq, seen, __ATOMIC_RELEASE);
            server_wake(t->srv);
        }
        memset(&from, 0, sizeof from);
        from.from = APS_REPLAY_FROM_SEQ;
        from.seq = seen;
        if (st == APS_OK)
            st = aps_replay_store_cursor_init(t->watch, &cur, NULL, &from, &err);
        if (st == APS_OK)
            st = aps_replay_store_wait(t->watch, &cur, WATCH_MS, &err);
        if (st == APS_OK || st == APS_E_NOT_FOUND) {
            if (failing)
                server_log(t->srv, "%s: the shared log is back", t->id);
            failing = 0;
            continue;
        }
        if (!failing)
            server_log(t->srv, "%s: the shared log cannot be watched (retrying): %s", t->id, err.message);
        failing = 1;
        {
            struct timespec pause = { 0, (long)WATCH_MS * 1000000L };
            nanosleep(&pause, NULL);
        }
    }
    return NULL;
}

/* Opens one store of thread `t`'s log: the product's open_log, or in memory. */
static aps_status log_open(ap_server *s, srv_thread *t, aps_replay_store **out, aps_error *err)
{
    aps_slice id;
    aps_status st;
    *out = NULL;
    if (s->opt.open_log == NULL)
        return aps_replay_store_open_memory(out, &s->opt.replay, err);
    id.ptr = t->id;
    id.len = t->id_len;
    st = s->opt.open_log(s->opt.user, id, out, err);
    if (st == APS_OK && *out == NULL)
        st = aps_error_set(err, APS_E_ARGUMENT, 0, "open_log gave no log");
    return st;
}

/*
 * A new thread `id`, its log open (three connections and a watcher when it
 * is shared), its last seq the log's. NULL after logging why.
 */
static srv_thread *thread_open(ap_server *s, const char *id, size_t len)
{
    aps_error err = APS_ERROR_INIT;
    aps_replay_stats stats;
    srv_thread *t = calloc(1, sizeof *t);
    if (t == NULL || (t->id = malloc(len + 1)) == NULL) {
        free(t);
        return NULL;
    }
    memcpy(t->id, id, len);
    t->id[len] = '\0';
    t->id_len = len;
    t->srv = s;
    pthread_mutex_init(&t->lock, NULL);
    aps_json_writer_init(&t->json, NULL);
    if (log_open(s, t, &t->log, &err) != APS_OK)
        goto fail;
    if (aps_replay_store_memory_buffer(t->log) != NULL) {
        t->writer = t->log;
    } else if (log_open(s, t, &t->writer, &err) != APS_OK || log_open(s, t, &t->watch, &err) != APS_OK) {
        goto fail;
    }
    if (aps_replay_store_stats_get(t->log, &stats, &err) != APS_OK)
        goto fail;
    t->last_seq = stats.last_seq;
    if (t->watch != NULL) {
        if (pthread_create(&t->watcher, NULL, watch_main, t) != 0) {
            aps_error_set(&err, APS_E_NOMEM, 0, "cannot start its watcher thread");
            goto fail;
        }
        t->watching = 1;
    }
    return t;
fail:
    server_log(s, "%s: cannot open the thread's log: %s", t->id, err.message);
    thread_free(t);
    return NULL;
}

static srv_thread *thread_find(ap_server *s, const char *id, size_t len)
{
    srv_thread *t;
    for (t = s->threads; t != NULL; t = t->next)
        if (t->id_len == len && memcmp(t->id, id, len) == 0)
            break;
    return t;
}

srv_thread *server_thread(ap_server *s, const char *id, size_t len, int create)
{
    srv_thread *t, *made;
    pthread_mutex_lock(&s->lock);
    t = thread_find(s, id, len);
    create = create && t == NULL && s->nthreads < s->opt.max_threads;
    pthread_mutex_unlock(&s->lock);
    if (!create)
        return t;
    /* opened outside the lock: a shared log takes round trips to open */
    if ((made = thread_open(s, id, len)) == NULL)
        return NULL;
    pthread_mutex_lock(&s->lock);
    if ((t = thread_find(s, id, len)) == NULL && s->nthreads < s->opt.max_threads) {
        t = made;
        made = NULL;
        t->next = s->threads;
        s->threads = t;
        s->nthreads++;
    }
    pthread_mutex_unlock(&s->lock);
    if (made != NULL) /* another caller made it first (or took the last place) */
        thread_free(made);
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
 * The common end of both publish calls (under t->lock): keeps the event
 * whose JSON (without `eventId` and `seq`, see ap_server_records.c) is in
 * t->json with `meta`, and a root values event's `data` as the state. *seq
 * gets the seq the log gave it.
 */
static aps_status publish_record(srv_thread *t, aps_slice method, const aps_replay_meta *meta, aps_json_raw state,
                                 uint64_t *seq, aps_error *err)
{
    size_t len = 0;
    uint64_t last;
    aps_status st;
    if (record_put(t, &len, "event: ", 7) != 0 || record_put(t, &len, method.ptr, method.len) != 0 ||
        record_put(t, &len, "\ndata: ", 7) != 0 ||
        record_put(t, &len, aps_json_writer_data(&t->json), aps_json_writer_len(&t->json)) != 0 ||
        record_put(t, &len, "\n\n", 2) != 0)
        return aps_error_set(err, APS_E_NOMEM, 0, "no memory for the event");
    if ((st = aps_replay_store_append(t->writer, t->record, len, meta, seq, err)) != APS_OK)
        return st;
    if (state.ptr != NULL && meta->channel == APS_CHANNEL_VALUES && meta->ns.count == 0 && t->watch == NULL) {
        /* (a shared log's state is read from the log: another replica may have a newer one) */
        char *copy = malloc(state.len + 1);
        if (copy != NULL) {
            memcpy(copy, state.ptr, state.len);
            copy[state.len] = '\0';
            free(t->state);
            t->state = copy;
            t->state_len = state.len;
        }
    }
    /* the larger: the watcher of a shared log may have seen further already */
    last = __atomic_load_n(&t->last_seq, __ATOMIC_ACQUIRE);
    while (*seq > last && !__atomic_compare_exchange_n(&t->last_seq, &last, *seq, 0, __ATOMIC_RELEASE,
                                                       __ATOMIC_ACQUIRE))
        ;
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
    server_wake(s);
}

aps_status ap_server_publish(ap_server *s, aps_slice thread_id, ap_message_t *msg, uint64_t *seq, aps_error *err)
{
    srv_thread *t;
    ap_event_t *ev;
    aps_replay_meta meta;
    aps_encode_options eo;
    aps_slice method, event_id;
    aps_json_raw state = { NULL, 0 };
    ap_timestamp_t *ts;
    int has_event_id;
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
    /* the eventId goes to the log's index, the seq comes from the log: both are written as sent */
    ap_event_replay_meta(ev, &meta);
    has_event_id = ev->has_event_id;
    event_id = ev->event_id;
    ev->has_event_id = false;
    ev->has_seq = false;
    pthread_mutex_lock(&t->lock);
    aps_json_writer_reset(&t->json);
    st = ap_message_encode_opts(msg, &t->json, &eo, err);
    if (st == APS_OK)
        st = publish_record(t, method, &meta, state, &s_new, err);
    pthread_mutex_unlock(&t->lock);
    ev->has_event_id = has_event_id;
    ev->event_id = event_id;
    if (st == APS_OK) {
        ev->has_seq = true;
        ev->seq = s_new;
        published(s, s_new, seq);
    }
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

#define NOT_AN_EVENT "not an event: a JSON object with a string `method` and `params.namespace` is needed"

/*
 * One read of the event's members writes them out (the stamped ones afresh)
 * and finds its method and params on the way; ap_event_replay_meta_text has
 * read it once before, for the log's metadata.
 */
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
    aps_slice method = { NULL, 0 }, key;
    uint64_t s_new = 0;
    int more, has_method = 0, has_params = 0;
    aps_status st = APS_OK;
    if (s == NULL || json == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, 0, "publish_json takes an event's JSON");
    if ((st = publish_thread(s, thread_id, &t, err)) != APS_OK)
        return st;
    aps_arena_init(&arena, NULL);
    if (ap_event_replay_meta_text(json, len, NULL, &arena, &meta, err) != APS_OK) {
        aps_arena_deinit(&arena);
        return aps_error_set(err, APS_E_SYNTAX, 0, NOT_AN_EVENT);
    }
    pthread_mutex_lock(&t->lock);
    aps_json_writer_reset(&t->json);
    aps_json_write_object_begin(&t->json);
    aps_json_write_key(&t->json, "type", 4);
    aps_json_write_string(&t->json, "event", 5);
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
            if (st == APS_OK && key.len == 6 && memcmp(key.ptr, "method", 6) == 0) {
                aps_json_raw_reader(&pr, value, &arena);
                has_method = aps_json_read_string(&pr, &method, NULL) == APS_OK && field_ok(method) &&
                             method.len > 0;
            }
            continue;
        }
        has_params = 1;
        st = aps_json_read_raw(&r, &params, NULL);
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
    if (st == APS_OK && (!has_method || !has_params)) {
        st = aps_error_set(err, APS_E_SYNTAX, 0, NOT_AN_EVENT);
    } else if (st == APS_OK && aps_json_writer_finish(&t->json, err) == APS_OK) {
        meta.event_id.ptr = NULL; /* the seq in decimal, written as sent */
        meta.event_id.len = 0;
        st = publish_record(t, method, &meta, data, &s_new, err);
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

/* The `params.data` of a root `values` event, copied out of a shared log (copy_state). */
typedef struct state_copy {
    char *json;
    size_t len;
} state_copy;

/* Visitor: a root baseline `values` event's data into the state_copy at ctx. */
static int copy_state(void *ctx, const aps_replay_event *ev)
{
    state_copy *out = ctx;
    size_t at = server_record_json(ev->bytes, ev->len);
    aps_arena arena;
    aps_json_raw root, params, data;
    if (!ev->baseline || ev->ns.count != 0 || at == 0)
        return 0;
    root.ptr = (const char *)ev->bytes + at;
    root.len = ev->len - at - 2;
    aps_arena_init(&arena, NULL);
    if (aps_json_raw_member(root, "params", 6, &arena, &params, NULL) == APS_OK &&
        aps_json_raw_member(params, "data", 4, &arena, &data, NULL) == APS_OK &&
        (out->json = malloc(data.len + 1)) != NULL) {
        memcpy(out->json, data.ptr, data.len);
        out->json[data.len] = '\0';
        out->len = data.len;
    }
    aps_arena_deinit(&arena);
    return 0;
}

/* The latest root state of a shared log (under t->lock: it reads through the writer's connection). */
static void shared_state(srv_thread *t, state_copy *out)
{
    static const aps_slice values = { "values", 6 };
    aps_filter_spec spec;
    aps_filter f;
    aps_replay_cursor cur;
    aps_replay_gap gap;
    size_t n = 0;
    memset(&spec, 0, sizeof spec);
    spec.channels = &values;
    spec.channel_count = 1;
    if (aps_filter_init(&f, &spec, NULL, NULL) != APS_OK)
        return;
    /* a new `values` subscriber's start: the baseline, one event per namespace */
    if (aps_replay_store_cursor_init(t->writer, &cur, &f, NULL, NULL) == APS_OK &&
        aps_replay_store_read(t->writer, &cur, t->srv->opt.replay.baseline_namespaces + 64, copy_state, out, &n,
                              &gap, NULL) != APS_OK)
        server_log(t->srv, "%s: the shared log's state could not be read", t->id);
    aps_filter_deinit(&f);
}

aps_status ap_server_state(ap_server *s, aps_slice thread_id, char **json, size_t *len)
{
    srv_thread *t = s != NULL ? server_thread(s, thread_id.ptr, thread_id.len, s->opt.open_log != NULL) : NULL;
    state_copy got = { NULL, 0 };
    *json = NULL;
    *len = 0;
    if (t == NULL)
        return APS_E_NOT_FOUND;
    pthread_mutex_lock(&t->lock);
    if (t->watch != NULL) {
        shared_state(t, &got);
    } else if (t->state != NULL && (got.json = malloc(t->state_len + 1)) != NULL) {
        memcpy(got.json, t->state, t->state_len + 1);
        got.len = t->state_len;
    }
    pthread_mutex_unlock(&t->lock);
    *json = got.json;
    *len = got.len;
    return got.json != NULL ? APS_OK : APS_E_NOT_FOUND;
}

void server_threads_unwatch(ap_server *s)
{
    srv_thread *t;
    /* all told first, so that their waits end together */
    for (t = s->threads; t != NULL; t = t->next)
        __atomic_store_n(&t->unwatch, 1, __ATOMIC_RELEASE);
    for (t = s->threads; t != NULL; t = t->next)
        unwatch(t);
}

void server_threads_free(ap_server *s)
{
    srv_thread *t;
    server_threads_unwatch(s);
    while ((t = s->threads) != NULL) {
        s->threads = t->next;
        thread_free(t);
    }
}
