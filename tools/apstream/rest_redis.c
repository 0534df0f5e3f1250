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

#define MAX_WATCHED 64    /* joins here of runs other replicas play */
#define WATCH_MS 100      /* how often their records are read */

typedef struct rr {
    redisContext *c;
    pthread_t watcher;    /* reads the records of the runs watched (started with the first) */
    int watcher_started, stop;
    pthread_mutex_t wlock; /* the list below */
    struct { char run[40]; ap_server_feed *feed; } watched[MAX_WATCHED];
    size_t nwatched;
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

/* A record Redis holds that is not one of ours: the section fails, and says which. */
static void unreadable(rr *s, const char *kind, const char *name, const aps_error *err)
{
    fprintf(stderr, "apstream serve: redis: the %s record %.200s: %s (at %s)\n", kind, name, err->message,
            err->pointer[0] ? err->pointer : "/");
    s->failed = 1;
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
    aps_error err = APS_ERROR_INIT;
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
    if (rep->type != REDIS_REPLY_STRING) {
        freeReplyObject(rep); /* none */
        return;
    }
    if ((n = calloc(1, sizeof *n)) == NULL || (n->saved = rest_strndup(rep->str, rep->len)) == NULL) {
        s->failed = 1;
        free(n);
        freeReplyObject(rep);
        return;
    }
    if (rest_thread_read(rep->str, rep->len, n, &err) != APS_OK || strcmp(n->id, id) != 0) {
        if (err.code == APS_OK)
            aps_error_set(&err, APS_E_SYNTAX, 0, "it names another thread");
        unreadable(s, "thread", id, &err);
        rest_thread_free(n);
        freeReplyObject(rep);
        return;
    }
    freeReplyObject(rep);
    hist = command(s, "LRANGE %srest:hist:%b %d -1", s->prefix, id, strlen(id), -(int)REST_MAX_HISTORY);
    for (i = 0; hist != NULL && hist->type == REDIS_REPLY_ARRAY && i < hist->elements && n->nhist < REST_MAX_HISTORY; i++) {
        rstate *st = &n->hist[n->nhist];
        if (hist->element[i]->type != REDIS_REPLY_STRING)
            continue;
        memset(st, 0, sizeof *st);
        if (rest_state_read(hist->element[i]->str, hist->element[i]->len, st, &err) != APS_OK) {
            free(st->values);
            free(st->metadata);
            unreadable(s, "state", id, &err);
            break;
        }
        n->nhist++;
    }
    freeReplyObject(hist);
    if (s->failed) {
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
    aps_error err = APS_ERROR_INIT;
    char *saved;
    int fresh = 0;
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
    if ((saved = rest_strndup(rep->str, rep->len)) == NULL) {
        s->failed = 1;
    } else if (rest_run_read(rep->str, rep->len, run, &err) != APS_OK || strcmp(run->id, id) != 0) {
        if (err.code == APS_OK)
            aps_error_set(&err, APS_E_SYNTAX, 0, "it names another run");
        unreadable(s, "run", id, &err);
        free(saved);
        saved = NULL;
    }
    freeReplyObject(rep);
    if (saved == NULL) {
        if (fresh)
            free(run);
        return;
    }
    free(run->saved);
    run->saved = saved;
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
    aps_error err = APS_ERROR_INIT;
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
    if ((it = calloc(1, sizeof *it)) == NULL || (it->saved = rest_strndup(rep->str, rep->len)) == NULL) {
        s->failed = 1;
        free(it);
        freeReplyObject(rep);
        return;
    }
    if (rest_item_read(rep->str, rep->len, it, &err) != APS_OK) {
        unreadable(s, "item", name, &err);
        rest_item_free(it);
        freeReplyObject(rep);
        return;
    }
    freeReplyObject(rep);
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
        name = aps_json_writer_status(&w) == APS_OK ? rest_strndup(aps_json_writer_data(&w), aps_json_writer_len(&w)) : NULL;
        aps_json_writer_deinit(&w);
        if (name == NULL) {
            ((rr *)r->bs)->failed = 1;
            return;
        }
        load_item_named(r, name); /* (the name rest_item_name gives it) */
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
        if ((text = rest_thread_record(t)) == NULL) {
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
                char *st = rest_state_record(&t->hist[i]);
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
        if ((text = rest_run_record(run)) == NULL) {
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
        if ((text = rest_item_record(it)) == NULL || (name = rest_item_name(it)) == NULL) {
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

/* ---- joins of runs other replicas play ------------------------------------------------- */

/*
 * Every WATCH_MS: the watched runs that ended (or are gone) have their
 * feeds closed; the runs enqueued here whose turn came start (rest_pending_turns).
 */
static void *watcher(void *arg)
{
    rest *r = arg;
    rr *s = r->bs;
    for (;;) {
        size_t i, n;
        char runs[MAX_WATCHED][40];
        int ended[MAX_WATCHED];
        sleep_ms(WATCH_MS);
        pthread_mutex_lock(&s->wlock);
        if (s->stop) {
            pthread_mutex_unlock(&s->wlock);
            return NULL;
        }
        n = s->nwatched;
        for (i = 0; i < n; i++)
            memcpy(runs[i], s->watched[i].run, sizeof runs[i]);
        pthread_mutex_unlock(&s->wlock);
        if ((n == 0 && !rest_has_pending(r)) || rest_begin(r, 0) != 0)
            continue; /* (nothing to watch; or Redis away: the joins wait for it) */
        rest_pending_turns(r);
        for (i = 0; i < n; i++) {
            rrun *run;
            pthread_mutex_lock(&r->lock);
            run = rest_run_find(r, runs[i]);
            ended[i] = run == NULL || (strcmp(run->status, "running") != 0 && strcmp(run->status, "pending") != 0);
            pthread_mutex_unlock(&r->lock);
        }
        if (rest_end(r) != 0)
            continue;
        pthread_mutex_lock(&s->wlock);
        for (i = 0; i < n; i++) {
            size_t k;
            if (!ended[i])
                continue;
            for (k = 0; k < s->nwatched; k++)
                if (strcmp(s->watched[k].run, runs[i]) == 0) {
                    ap_server_feed_close(s->watched[k].feed); /* the join's long poll is answered */
                    ap_server_feed_unref(s->watched[k].feed);
                    s->watched[k] = s->watched[--s->nwatched];
                    break;
                }
        }
        pthread_mutex_unlock(&s->wlock);
    }
}

static ap_server_feed *watch(rest *r, const char *run_id)
{
    rr *s = r->bs;
    ap_server_feed *f = NULL;
    pthread_mutex_lock(&s->wlock);
    if (!s->stop && s->nwatched < MAX_WATCHED && (f = ap_server_feed_new(r->srv)) != NULL) {
        if (!s->watcher_started) {
            ap_server_feed_unref(f);
            f = NULL;
        } else {
            snprintf(s->watched[s->nwatched].run, sizeof s->watched[0].run, "%s", run_id);
            s->watched[s->nwatched++].feed = f;
            ap_server_feed_ref(f); /* (the list's, and the caller's) */
        }
    }
    pthread_mutex_unlock(&s->wlock);
    return f;
}

/* Stops the watcher (nothing wakes the server once it stops) and ends the joins it watched for. */
static void backend_close(rest *r)
{
    rr *s = r->bs;
    size_t i;
    pthread_mutex_lock(&s->wlock);
    s->stop = 1;
    pthread_mutex_unlock(&s->wlock);
    if (s->watcher_started)
        pthread_join(s->watcher, NULL);
    s->watcher_started = 0;
    pthread_mutex_lock(&s->wlock);
    for (i = 0; i < s->nwatched; i++)
        ap_server_feed_close(s->watched[i].feed);
    pthread_mutex_unlock(&s->wlock);
}

static void backend_free(rest *r)
{
    rr *s = r->bs;
    size_t i;
    if (s == NULL)
        return;
    backend_close(r); /* (done already when rest_close was called) */
    for (i = 0; i < s->nwatched; i++) {
        ap_server_feed_close(s->watched[i].feed);
        ap_server_feed_unref(s->watched[i].feed);
    }
    pthread_mutex_destroy(&s->wlock);
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

static const rest_backend redis_backend = { begin,        commit,     end,    load_thread, load_run,
                                            load_runs,    load_threads, load_items, forget, next_order,
                                            watch,        backend_close, backend_free };

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
    pthread_mutex_init(&s->wlock, NULL);
    r->bs = s;
    r->be = &redis_backend;
    if (pthread_create(&s->watcher, NULL, watcher, r) != 0) {
        snprintf(why, cap, "no thread to watch the runs of other replicas");
        backend_free(r);
        r->be = NULL;
        return -1;
    }
    s->watcher_started = 1;
    return 0;
}
