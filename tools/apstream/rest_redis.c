/*
 * rest_redis.c - the records of serve's REST API on Redis (--redis; docs/rest.md,
 * "Where the records live"): a rest_backend (rest_internal.h). Redis is
 * the source of truth; memory holds a record only within the section (one
 * request, or one event of a run) that read it, and the runs this process
 * plays (their classic streams and the message being streamed, which are
 * not shared). So every replica reads every record afresh: none answers
 * from a stale copy.
 *
 * A section holds the lock key `P rest:lock` (SET NX PX, released by a
 * script that deletes it only while it holds this section's token): the
 * read-modify-write of a section is atomic across the replicas, which is
 * what "one active run per thread" (multitask_strategy) needs when two
 * replicas start runs on one thread at once. What a section changed is
 * written in one MULTI/EXEC: a record is never half written.
 *
 * Keys (P is the prefix, `apstream:` for serve):
 *   P rest:lock                the section lock
 *   P rest:order               the order counter (INCR)
 *   P rest:threads             zset: thread ids by order
 *   P rest:thread:ID           the thread's record (JSON)
 *   P rest:hist:ID             list: its states, oldest first (at most REST_MAX_HISTORY)
 *   P rest:thread-runs:ID      zset: its run ids by order
 *   P rest:runs                zset: every run id by order
 *   P rest:run:RUN             the run's record (JSON)
 *   P rest:items               zset: item names ([labels..., key] as JSON) by order
 *   P rest:item:NAME           the item (JSON)
 */
#include "rest_internal.h"

#include "aps/replay_redis.h"

#include <hiredis/hiredis.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define LOCK_MS 5000      /* a section's lock expires after this (a replica that died holding it) */
#define LOCK_WAIT_MS 8000 /* how long a section waits for another's lock */
#define PATIENT_MS 2000   /* how long an event of a run waits for Redis to come back (as the protocol log's appends do) */

typedef struct deletion {
    char kind;            /* 't', 'r', 'i' */
    char *a, *b;
} deletion;

typedef struct rr {
    redisContext *c;
    aps_replay_redis_url url;
    char prefix[64];
    char token[40];       /* this section's lock token */
    int failed;           /* this section met an error: it writes nothing more */
    deletion *dels;
    size_t ndels, cap;
} rr;

static uint64_t now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
}

static void sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

static int connect_redis(rr *s, char *why, size_t cap)
{
    struct timeval tv;
    redisReply *rep;
    if (s->c != NULL && s->c->err == 0)
        return 0;
    if (s->c != NULL)
        redisFree(s->c);
    tv.tv_sec = 1;
    tv.tv_usec = 0;
    s->c = redisConnectWithTimeout(s->url.host, s->url.port, tv);
    if (s->c == NULL || s->c->err != 0) {
        if (why != NULL)
            snprintf(why, cap, "redis %s:%d: %s", s->url.host, s->url.port, s->c != NULL ? s->c->errstr : "no memory");
        if (s->c != NULL)
            redisFree(s->c);
        s->c = NULL;
        return -1;
    }
    tv.tv_sec = 2; /* (a command that waits longer: Redis is gone) */
    (void)redisSetTimeout(s->c, tv);
    if (s->url.db != 0) {
        rep = redisCommand(s->c, "SELECT %d", s->url.db);
        if (rep == NULL || rep->type == REDIS_REPLY_ERROR) {
            if (why != NULL)
                snprintf(why, cap, "redis: SELECT %d: %s", s->url.db, rep != NULL ? rep->str : s->c->errstr);
            freeReplyObject(rep);
            redisFree(s->c);
            s->c = NULL;
            return -1;
        }
        freeReplyObject(rep);
    }
    return 0;
}

/* A command of the section; NULL (and the section failed) on an error. */
static redisReply *command(rr *s, const char *fmt, ...)
{
    va_list ap;
    redisReply *rep;
    if (s->failed || s->c == NULL)
        return NULL;
    va_start(ap, fmt);
    rep = redisvCommand(s->c, fmt, ap);
    va_end(ap);
    if (rep == NULL || rep->type == REDIS_REPLY_ERROR) {
        if (rep != NULL)
            fprintf(stderr, "apstream serve: redis: %s\n", rep->str);
        freeReplyObject(rep);
        s->failed = 1;
        return NULL;
    }
    return rep;
}

/* ---- reading records ------------------------------------------------------------------- */

/* Member `name` as malloc'd JSON text; NULL when absent or null. *bad set when out of memory. */
static char *get_raw(aps_json_raw obj, const char *name, aps_arena *a, int *bad)
{
    aps_json_raw v;
    char *text;
    if (aps_json_raw_member(obj, name, strlen(name), a, &v, NULL) != APS_OK || aps_json_raw_kind(v) == APS_JSON_NULL)
        return NULL;
    if ((text = rest_strndup(v.ptr, v.len)) == NULL)
        *bad = 1;
    return text;
}

static int64_t get_int(aps_json_raw obj, const char *name, aps_arena *a)
{
    aps_json_raw v;
    aps_json_reader rd;
    int64_t n = 0;
    if (aps_json_raw_member(obj, name, strlen(name), a, &v, NULL) == APS_OK) {
        aps_json_raw_reader(&rd, v, a);
        if (aps_json_read_int64(&rd, &n, NULL) != APS_OK)
            n = 0;
    }
    return n;
}

/* ---- writing records ------------------------------------------------------------------- */

static void put_str(aps_json_writer *w, const char *key, const char *v)
{
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_string(w, v, strlen(v));
}

static void put_raw(aps_json_writer *w, const char *key, const char *json)
{
    aps_json_write_key(w, key, strlen(key));
    if (json != NULL)
        aps_json_write_raw(w, (aps_json_raw){ json, strlen(json) });
    else
        aps_json_write_null(w);
}

static void put_int(aps_json_writer *w, const char *key, int64_t v)
{
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_int64(w, v);
}

/* The writer's text, malloc'd; NULL out of memory. */
static char *writer_text(aps_json_writer *w)
{
    char *text = aps_json_writer_status(w) == APS_OK ? rest_strndup(aps_json_writer_data(w), aps_json_writer_len(w))
                                                     : NULL;
    aps_json_writer_deinit(w);
    return text;
}

static char *thread_record(const rthread *t)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    put_str(&w, "id", t->id);
    put_str(&w, "created", t->created);
    put_str(&w, "updated", t->updated);
    put_raw(&w, "metadata", t->metadata);
    put_raw(&w, "values", t->values);
    put_raw(&w, "interrupts", t->interrupts);
    put_str(&w, "interrupt_node", t->interrupt_node);
    put_str(&w, "status", t->status);
    put_str(&w, "active", t->active);
    put_str(&w, "graph", t->graph);
    put_str(&w, "checkpoint", t->checkpoint);
    put_int(&w, "step", t->step);
    put_int(&w, "order", (int64_t)t->order);
    aps_json_write_object_end(&w);
    return writer_text(&w);
}

static char *state_record(const rstate *st)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    put_raw(&w, "values", st->values);
    put_str(&w, "checkpoint", st->checkpoint);
    put_str(&w, "parent", st->parent);
    put_str(&w, "created", st->created);
    put_int(&w, "step", st->step);
    aps_json_write_object_end(&w);
    return writer_text(&w);
}

static char *run_record(const rrun *run)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    put_str(&w, "id", run->id);
    put_str(&w, "thread", run->thread);
    put_str(&w, "assistant", run->assistant);
    put_str(&w, "graph", run->graph);
    put_str(&w, "status", run->status);
    put_str(&w, "multitask", run->multitask);
    put_str(&w, "created", run->created);
    put_str(&w, "updated", run->updated);
    put_raw(&w, "metadata", run->metadata);
    put_raw(&w, "kwargs", run->kwargs);
    put_int(&w, "modes", run->modes);
    put_int(&w, "pending", run->pending);
    put_int(&w, "resume", run->resume);
    put_raw(&w, "resume_json", run->resume_json);
    put_int(&w, "order", (int64_t)run->order);
    aps_json_write_object_end(&w);
    return writer_text(&w);
}

static char *item_record(const ritem *it)
{
    aps_json_writer w;
    size_t i;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "namespace", 9);
    aps_json_write_array_begin(&w);
    for (i = 0; i < it->nlabels; i++)
        aps_json_write_string(&w, it->labels[i], strlen(it->labels[i]));
    aps_json_write_array_end(&w);
    put_str(&w, "key", it->key);
    put_raw(&w, "value", it->value);
    put_str(&w, "created", it->created);
    put_str(&w, "updated", it->updated);
    put_int(&w, "order", (int64_t)it->order);
    aps_json_write_object_end(&w);
    return writer_text(&w);
}

/* ---- loading ------------------------------------------------------------------------------ */

static void unlink_thread(rest *r, rthread *t)
{
    rthread **p;
    for (p = &r->threads; *p != NULL; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
}

static void load_thread(rest *r, const char *id)
{
    rr *s = r->bs;
    rthread *t, *n;
    redisReply *rep, *hist;
    aps_arena a;
    aps_json_raw o;
    int bad = 0;
    size_t i;
    for (t = r->threads; t != NULL; t = t->next)
        if (strcmp(t->id, id) == 0)
            break;
    if (t != NULL && t->touched)
        return; /* (read in this section already, maybe changed since) */
    if ((rep = command(s, "GET %srest:thread:%b", s->prefix, id, strlen(id))) == NULL)
        return;
    if (t != NULL) {
        unlink_thread(r, t);
        rest_thread_free(t);
    }
    if (rep->type != REDIS_REPLY_STRING || (n = calloc(1, sizeof *n)) == NULL) {
        if (rep->type == REDIS_REPLY_STRING)
            s->failed = 1;
        freeReplyObject(rep);
        return;
    }
    aps_arena_init(&a, NULL);
    o.ptr = rep->str;
    o.len = rep->len;
    rest_member_str(o, "id", &a, n->id, sizeof n->id);
    rest_member_str(o, "created", &a, n->created, sizeof n->created);
    rest_member_str(o, "updated", &a, n->updated, sizeof n->updated);
    n->metadata = get_raw(o, "metadata", &a, &bad);
    n->values = get_raw(o, "values", &a, &bad);
    n->interrupts = get_raw(o, "interrupts", &a, &bad);
    rest_member_str(o, "interrupt_node", &a, n->interrupt_node, sizeof n->interrupt_node);
    rest_member_str(o, "status", &a, n->status, sizeof n->status);
    rest_member_str(o, "active", &a, n->active, sizeof n->active);
    rest_member_str(o, "graph", &a, n->graph, sizeof n->graph);
    rest_member_str(o, "checkpoint", &a, n->checkpoint, sizeof n->checkpoint);
    n->step = get_int(o, "step", &a);
    n->order = (uint64_t)get_int(o, "order", &a);
    n->saved = rest_strndup(rep->str, rep->len);
    if (n->metadata == NULL)
        n->metadata = rest_strndup("{}", 2);
    freeReplyObject(rep);
    hist = command(s, "LRANGE %srest:hist:%b %d -1", s->prefix, id, strlen(id), -(int)REST_MAX_HISTORY);
    if (hist != NULL && hist->type == REDIS_REPLY_ARRAY)
        for (i = 0; i < hist->elements && n->nhist < REST_MAX_HISTORY; i++) {
            rstate *st = &n->hist[n->nhist];
            if (hist->element[i]->type != REDIS_REPLY_STRING)
                continue;
            o.ptr = hist->element[i]->str;
            o.len = hist->element[i]->len;
            memset(st, 0, sizeof *st);
            st->values = get_raw(o, "values", &a, &bad);
            if (st->values == NULL && (st->values = rest_strndup("{}", 2)) == NULL)
                bad = 1;
            rest_member_str(o, "checkpoint", &a, st->checkpoint, sizeof st->checkpoint);
            rest_member_str(o, "parent", &a, st->parent, sizeof st->parent);
            rest_member_str(o, "created", &a, st->created, sizeof st->created);
            st->step = get_int(o, "step", &a);
            n->nhist++;
        }
    freeReplyObject(hist);
    aps_arena_deinit(&a);
    if (bad || n->saved == NULL || n->metadata == NULL) {
        s->failed = 1; /* (out of memory: the section fails rather than write a record half read) */
        rest_thread_free(n);
        return;
    }
    n->touched = 1;
    n->next = r->threads;
    r->threads = n;
}

static void load_run(rest *r, const char *id)
{
    rr *s = r->bs;
    rrun *run;
    redisReply *rep;
    aps_arena a;
    aps_json_raw o;
    int bad = 0, fresh = 0;
    for (run = r->runs; run != NULL; run = run->next)
        if (strcmp(run->id, id) == 0)
            break;
    if (run != NULL && run->touched)
        return;
    if ((rep = command(s, "GET %srest:run:%b", s->prefix, id, strlen(id))) == NULL)
        return;
    if (rep->type != REDIS_REPLY_STRING) {
        freeReplyObject(rep);
        if (run != NULL)
            rest_run_drop(r, run); /* deleted by another replica */
        return;
    }
    if (run == NULL) {
        if ((run = calloc(1, sizeof *run)) == NULL) {
            s->failed = 1;
            freeReplyObject(rep);
            return;
        }
        fresh = 1;
    }
    /* (a run this process plays keeps its stream and the message being streamed: only its record is read) */
    aps_arena_init(&a, NULL);
    o.ptr = rep->str;
    o.len = rep->len;
    rest_member_str(o, "id", &a, run->id, sizeof run->id);
    rest_member_str(o, "thread", &a, run->thread, sizeof run->thread);
    rest_member_str(o, "assistant", &a, run->assistant, sizeof run->assistant);
    rest_member_str(o, "graph", &a, run->graph, sizeof run->graph);
    rest_member_str(o, "status", &a, run->status, sizeof run->status);
    rest_member_str(o, "multitask", &a, run->multitask, sizeof run->multitask);
    rest_member_str(o, "created", &a, run->created, sizeof run->created);
    rest_member_str(o, "updated", &a, run->updated, sizeof run->updated);
    free(run->metadata);
    free(run->kwargs);
    free(run->resume_json);
    free(run->saved);
    run->metadata = get_raw(o, "metadata", &a, &bad);
    run->kwargs = get_raw(o, "kwargs", &a, &bad);
    run->resume_json = get_raw(o, "resume_json", &a, &bad);
    run->modes = (uint32_t)get_int(o, "modes", &a);
    run->pending = (int)get_int(o, "pending", &a);
    run->resume = (int)get_int(o, "resume", &a);
    run->order = (uint64_t)get_int(o, "order", &a);
    run->saved = rest_strndup(rep->str, rep->len);
    aps_arena_deinit(&a);
    freeReplyObject(rep);
    if (bad || run->saved == NULL)
        s->failed = 1;
    run->touched = 1;
    if (fresh) {
        run->next = r->runs;
        r->runs = run;
        r->nruns++;
    }
}

/* The members of zset `key` (ZRANGE 0 -1), each handed to fn. */
static void each_member(rest *r, const char *key, size_t klen, void (*fn)(rest *, const char *))
{
    rr *s = r->bs;
    redisReply *rep = command(s, "ZRANGE %s%b 0 -1", s->prefix, key, klen);
    size_t i;
    if (rep == NULL)
        return;
    for (i = 0; i < rep->elements && !s->failed; i++)
        if (rep->element[i]->type == REDIS_REPLY_STRING && rep->element[i]->len <= 1024) {
            char id[1025];
            memcpy(id, rep->element[i]->str, rep->element[i]->len);
            id[rep->element[i]->len] = '\0';
            fn(r, id);
        }
    freeReplyObject(rep);
}

static void load_runs(rest *r, const char *thread)
{
    char key[REST_MAX_ID + 32];
    if (thread == NULL)
        snprintf(key, sizeof key, "rest:runs");
    else
        snprintf(key, sizeof key, "rest:thread-runs:%s", thread);
    each_member(r, key, strlen(key), load_run);
}

static void load_threads(rest *r)
{
    each_member(r, "rest:threads", 12, load_thread);
}

/* Reads the item called `name` (JSON [labels..., key]) unless read in this section. */
static void load_item_named(rest *r, const char *name)
{
    rr *s = r->bs;
    ritem *it, **p;
    redisReply *rep;
    aps_arena a;
    aps_json_raw o, ns;
    aa_store_namespace_t labels;
    int bad = 0;
    size_t i;
    for (p = &r->items; *p != NULL; p = &(*p)->next) {
        char *have = rest_item_name(*p);
        int same = have != NULL && strcmp(have, name) == 0;
        free(have);
        if (same)
            break;
    }
    if (*p != NULL && (*p)->touched)
        return;
    if ((rep = command(s, "GET %srest:item:%b", s->prefix, name, strlen(name))) == NULL)
        return;
    if (*p != NULL) {
        it = *p;
        *p = it->next;
        rest_item_free(it);
    }
    if (rep->type != REDIS_REPLY_STRING) {
        freeReplyObject(rep);
        return;
    }
    aps_arena_init(&a, NULL);
    o.ptr = rep->str;
    o.len = rep->len;
    if ((it = calloc(1, sizeof *it)) == NULL || aps_json_raw_member(o, "namespace", 9, &a, &ns, NULL) != APS_OK ||
        aa_store_namespace_decode(ns.ptr, ns.len, &a, &labels, NULL) != APS_OK ||
        (it->labels = calloc(labels.count > 0 ? labels.count : 1, sizeof *it->labels)) == NULL) {
        free(it);
        s->failed = 1; /* (a record we did not write, or out of memory) */
        aps_arena_deinit(&a);
        freeReplyObject(rep);
        return;
    }
    for (i = 0; i < labels.count && !bad; i++, it->nlabels++)
        bad = (it->labels[i] = rest_strndup(labels.items[i].ptr, labels.items[i].len)) == NULL;
    {
        char key[1024];
        rest_member_str(o, "key", &a, key, sizeof key);
        bad |= (it->key = rest_strndup(key, strlen(key))) == NULL;
    }
    it->value = get_raw(o, "value", &a, &bad);
    rest_member_str(o, "created", &a, it->created, sizeof it->created);
    rest_member_str(o, "updated", &a, it->updated, sizeof it->updated);
    it->order = (uint64_t)get_int(o, "order", &a);
    it->saved = rest_strndup(rep->str, rep->len);
    aps_arena_deinit(&a);
    freeReplyObject(rep);
    if (bad || it->value == NULL || it->saved == NULL) {
        s->failed = 1;
        rest_item_free(it);
        return;
    }
    it->touched = 1;
    it->next = r->items;
    r->items = it;
}

static void load_items(rest *r, const aps_slice *labels, size_t n, const aps_slice *key)
{
    if (key == NULL) {
        each_member(r, "rest:items", 10, load_item_named);
        return;
    }
    {
        aps_json_writer w;
        size_t i;
        char *name;
        aps_json_writer_init(&w, NULL);
        aps_json_write_array_begin(&w);
        for (i = 0; i < n; i++)
            aps_json_write_string(&w, labels[i].ptr, labels[i].len);
        aps_json_write_string(&w, key->ptr, key->len);
        aps_json_write_array_end(&w);
        if ((name = writer_text(&w)) == NULL) {
            ((rr *)r->bs)->failed = 1;
            return;
        }
        load_item_named(r, name);
        free(name);
    }
}

static void forget(rest *r, char kind, const char *a, const char *b)
{
    rr *s = r->bs;
    deletion *d;
    if (s->ndels == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        deletion *grown = realloc(s->dels, cap * sizeof *grown);
        if (grown == NULL) {
            s->failed = 1; /* (the section fails: not a deletion half written) */
            return;
        }
        s->dels = grown;
        s->cap = cap;
    }
    d = &s->dels[s->ndels];
    d->kind = kind;
    d->a = rest_strndup(a, strlen(a));
    d->b = b != NULL ? rest_strndup(b, strlen(b)) : NULL;
    if (d->a == NULL || (b != NULL && d->b == NULL)) {
        free(d->a);
        free(d->b);
        s->failed = 1;
        return;
    }
    s->ndels++;
}

static uint64_t next_order(rest *r)
{
    rr *s = r->bs;
    redisReply *rep = command(s, "INCR %srest:order", s->prefix);
    uint64_t n = rep != NULL && rep->type == REDIS_REPLY_INTEGER ? (uint64_t)rep->integer : 0;
    freeReplyObject(rep);
    return n;
}

/* ---- sections -------------------------------------------------------------------------------- */

static int begin(rest *r, int patient)
{
    rr *s = r->bs;
    uint64_t start = now_ms();
    uint64_t give_up = start + (patient ? PATIENT_MS : 0);
    int attempts = 0;
    pthread_mutex_lock(&r->section);
    s->failed = 0;
    for (;;) {
        if (connect_redis(s, NULL, 0) == 0) {
            redisReply *rep;
            rest_uuid(r, s->token);
            for (;;) {
                rep = redisCommand(s->c, "SET %srest:lock %s NX PX %d", s->prefix, s->token, LOCK_MS);
                if (rep == NULL || rep->type == REDIS_REPLY_ERROR)
                    break; /* (connection lost, or Redis refuses: loading, out of memory...) */
                if (rep->type == REDIS_REPLY_STATUS) {
                    freeReplyObject(rep);
                    return 0;
                }
                freeReplyObject(rep); /* nil: another section holds it */
                rep = NULL;
                if (now_ms() > start + LOCK_WAIT_MS)
                    break;
                sleep_ms(1);
            }
            freeReplyObject(rep); /* (a refusal, e.g. LOADING after a restart: retried as a lost connection is) */
            if (now_ms() > start + LOCK_WAIT_MS) {
                fprintf(stderr, "apstream serve: redis: the records' lock stayed taken for %d ms\n", LOCK_WAIT_MS);
                break;
            }
            if (s->c->err != 0) {
                redisFree(s->c);
                s->c = NULL;
            }
        }
        if (++attempts >= 2 && now_ms() >= give_up)
            break; /* (at least two: a connection found broken is made anew at once) */
        if (attempts >= 2)
            sleep_ms(100);
    }
    pthread_mutex_unlock(&r->section);
    return -1;
}

/* Appends one command of the transaction (after its MULTI, the first time); counts them. */
static void queue(rr *s, size_t *n, const char *fmt, ...)
{
    va_list ap;
    if (*n == 0 && !s->failed) {
        if (redisAppendCommand(s->c, "MULTI") != REDIS_OK)
            s->failed = 1;
        else
            (*n)++;
    }
    va_start(ap, fmt);
    if (redisvAppendCommand(s->c, fmt, ap) != REDIS_OK)
        s->failed = 1;
    else
        (*n)++;
    va_end(ap);
}

static int commit(rest *r)
{
    rr *s = r->bs;
    rthread *t;
    rrun *run;
    ritem *it;
    size_t n = 0, i, nsaved = 0, cap = 0;
    struct pending { char **slot; char *text; } *done = NULL;
    int ok = 1;
    const char *p = s->prefix;
    if (s->failed || s->c == NULL)
        return -1;
    /* what changed: each record whose text differs from what was read or written last */
#define KEEP(slotp, textp)                                                                  \
    do {                                                                                    \
        if (nsaved == cap) {                                                                \
            size_t c2 = cap ? 2 * cap : 16;                                                 \
            struct pending *g = realloc(done, c2 * sizeof *g);                              \
            if (g == NULL) {                                                                \
                free(textp);                                                                \
                ok = 0;                                                                     \
                break;                                                                      \
            }                                                                               \
            done = g;                                                                       \
            cap = c2;                                                                       \
        }                                                                                   \
        done[nsaved].slot = (slotp);                                                        \
        done[nsaved++].text = (textp);                                                      \
    } while (0)
    for (i = 0; i < s->ndels; i++) {
        deletion *d = &s->dels[i];
        size_t la = strlen(d->a);
        if (d->kind == 't') {
            queue(s, &n, "DEL %srest:thread:%b %srest:hist:%b %srest:thread-runs:%b", p, d->a, la, p, d->a, la, p, d->a, la);
            queue(s, &n, "ZREM %srest:threads %b", p, d->a, la);
        } else if (d->kind == 'r') {
            queue(s, &n, "DEL %srest:run:%b", p, d->a, la);
            queue(s, &n, "ZREM %srest:runs %b", p, d->a, la);
            queue(s, &n, "ZREM %srest:thread-runs:%b %b", p, d->b, strlen(d->b), d->a, la);
        } else {
            queue(s, &n, "DEL %srest:item:%b", p, d->a, la);
            queue(s, &n, "ZREM %srest:items %b", p, d->a, la);
        }
    }
    for (t = r->threads; t != NULL && ok; t = t->next) {
        char *text;
        if (!t->touched)
            continue;
        if ((text = thread_record(t)) == NULL) {
            ok = 0;
            break;
        }
        if (t->saved == NULL || strcmp(text, t->saved) != 0) {
            queue(s, &n, "SET %srest:thread:%b %s", p, t->id, strlen(t->id), text);
            queue(s, &n, "ZADD %srest:threads %llu %b", p, (unsigned long long)t->order, t->id, strlen(t->id));
            KEEP(&t->saved, text);
        } else {
            free(text);
        }
        if (t->pushed > 0) {
            size_t k = t->pushed < t->nhist ? t->pushed : t->nhist;
            for (i = t->nhist - k; i < t->nhist && ok; i++) {
                char *st = state_record(&t->hist[i]);
                if (st == NULL) {
                    ok = 0;
                    break;
                }
                queue(s, &n, "RPUSH %srest:hist:%b %s", p, t->id, strlen(t->id), st);
                free(st);
            }
            queue(s, &n, "LTRIM %srest:hist:%b %d -1", p, t->id, strlen(t->id), -(int)REST_MAX_HISTORY);
        }
    }
    for (run = r->runs; run != NULL && ok; run = run->next) {
        char *text;
        if (!run->touched)
            continue;
        if ((text = run_record(run)) == NULL) {
            ok = 0;
            break;
        }
        if (run->saved == NULL || strcmp(text, run->saved) != 0) {
            queue(s, &n, "SET %srest:run:%b %s", p, run->id, strlen(run->id), text);
            queue(s, &n, "ZADD %srest:runs %llu %b", p, (unsigned long long)run->order, run->id, strlen(run->id));
            queue(s, &n, "ZADD %srest:thread-runs:%b %llu %b", p, run->thread, strlen(run->thread),
                  (unsigned long long)run->order, run->id, strlen(run->id));
            KEEP(&run->saved, text);
        } else {
            free(text);
        }
    }
    for (it = r->items; it != NULL && ok; it = it->next) {
        char *text, *name;
        if (!it->touched)
            continue;
        if ((text = item_record(it)) == NULL || (name = rest_item_name(it)) == NULL) {
            free(text);
            ok = 0;
            break;
        }
        if (it->saved == NULL || strcmp(text, it->saved) != 0) {
            queue(s, &n, "SET %srest:item:%b %s", p, name, strlen(name), text);
            queue(s, &n, "ZADD %srest:items %llu %b", p, (unsigned long long)it->order, name, strlen(name));
            KEEP(&it->saved, text);
        } else {
            free(text);
        }
        free(name);
    }
#undef KEEP
    if (n > 0) /* (nothing changed: no transaction, no round trip) */
        queue(s, &n, "EXEC");
    if (!ok || s->failed) {
        /* (out of memory before EXEC: the MULTI is dropped with the connection, nothing is written) */
        redisFree(s->c);
        s->c = NULL;
        s->failed = 1;
    } else {
        for (i = 0; i < n; i++) {
            redisReply *rep = NULL;
            if (redisGetReply(s->c, (void **)&rep) != REDIS_OK || rep == NULL) {
                s->failed = 1;
                break;
            }
            if (i + 1 == n && (rep->type != REDIS_REPLY_ARRAY)) /* EXEC: nil or an error when aborted */
                s->failed = 1;
            if (i + 1 < n && rep->type == REDIS_REPLY_ERROR) {
                fprintf(stderr, "apstream serve: redis: %s\n", rep->str);
                s->failed = 1;
            }
            freeReplyObject(rep);
        }
    }
    for (i = 0; i < nsaved; i++) {
        if (!s->failed) {
            free(*done[i].slot);
            *done[i].slot = done[i].text;
        } else {
            free(done[i].text);
        }
    }
    free(done);
    if (s->failed)
        return -1;
    for (t = r->threads; t != NULL; t = t->next)
        t->pushed = 0;
    for (i = 0; i < s->ndels; i++) {
        free(s->dels[i].a);
        free(s->dels[i].b);
    }
    s->ndels = 0;
    return 0;
}

static int end(rest *r)
{
    rr *s = r->bs;
    int rc = commit(r);
    size_t i;
    rrun *run, *next;
    /* forget: the next section reads afresh (the runs this process plays keep their streams) */
    pthread_mutex_lock(&r->lock);
    while (r->threads != NULL) {
        rthread *t = r->threads;
        r->threads = t->next;
        rest_thread_free(t);
    }
    while (r->items != NULL) {
        ritem *it = r->items;
        r->items = it->next;
        rest_item_free(it);
    }
    for (run = r->runs; run != NULL; run = next) {
        next = run->next;
        if (run->feed == NULL || run->saved == NULL) /* (a run never written: it did not start) */
            rest_run_drop(r, run);
        else
            run->touched = 0;
    }
    pthread_mutex_unlock(&r->lock);
    for (i = 0; i < s->ndels; i++) {
        free(s->dels[i].a);
        free(s->dels[i].b);
    }
    s->ndels = 0;
    /* the lock: released only while it is this section's (it may have expired and been taken) */
    if (s->c == NULL || s->c->err != 0)
        (void)connect_redis(s, NULL, 0);
    if (s->c != NULL) {
        redisReply *rep = redisCommand(s->c,
                                       "EVAL %s 1 %srest:lock %s",
                                       "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
                                       "end return 0",
                                       s->prefix, s->token);
        freeReplyObject(rep);
    }
    pthread_mutex_unlock(&r->section);
    return rc;
}

static void backend_free(rest *r)
{
    rr *s = r->bs;
    size_t i;
    if (s == NULL)
        return;
    if (s->c != NULL)
        redisFree(s->c);
    for (i = 0; i < s->ndels; i++) {
        free(s->dels[i].a);
        free(s->dels[i].b);
    }
    free(s->dels);
    free(s);
    r->bs = NULL;
}

static const rest_backend redis_backend = { begin,      commit,     end,   load_thread, load_run,     load_runs,
                                            load_threads, load_items, forget, next_order, backend_free };

int rest_use_redis(rest *r, const char *url, const char *prefix, char *why, size_t cap)
{
    rr *s = calloc(1, sizeof *s);
    aps_error err = APS_ERROR_INIT;
    if (s == NULL) {
        snprintf(why, cap, "no memory");
        return -1;
    }
    if (aps_replay_redis_parse_url(url, strlen(url), &s->url, &err) != APS_OK) {
        snprintf(why, cap, "%s", err.message);
        free(s);
        return -1;
    }
    snprintf(s->prefix, sizeof s->prefix, "%s", prefix);
    if (connect_redis(s, why, cap) != 0) {
        free(s);
        return -1;
    }
    r->bs = s;
    r->be = &redis_backend;
    return 0;
}
