/*
 * ap_server_feed.c - feeds (ap_server.h): append-only lists of SSE records
 * that the product's threads append to and the service thread streams.
 * A REST run's classic stream is one: every request that streams or joins
 * the run reads the same records from its own index, so that a join by
 * Last-Event-ID resumes where the client was (docs/rest.md).
 */
#include "server_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct feed_record {
    char *event;
    char *json;
    size_t len;
    uint32_t tag;
} feed_record;

struct ap_server_feed {
    ap_server *srv;
    pthread_mutex_t lock;
    int refs;
    int closed;
    feed_record *records;
    size_t count, cap;
};

ap_server_feed *ap_server_feed_new(ap_server *srv)
{
    ap_server_feed *f = calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    f->srv = srv;
    f->refs = 1;
    pthread_mutex_init(&f->lock, NULL);
    return f;
}

void ap_server_feed_ref(ap_server_feed *f)
{
    pthread_mutex_lock(&f->lock);
    f->refs++;
    pthread_mutex_unlock(&f->lock);
}

void ap_server_feed_unref(ap_server_feed *f)
{
    int last;
    size_t i;
    if (f == NULL)
        return;
    pthread_mutex_lock(&f->lock);
    last = --f->refs == 0;
    pthread_mutex_unlock(&f->lock);
    if (!last)
        return;
    for (i = 0; i < f->count; i++) {
        free(f->records[i].event);
        free(f->records[i].json);
    }
    free(f->records);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

aps_status ap_server_feed_append(ap_server_feed *f, const char *event, const char *json, size_t len, uint32_t tag)
{
    feed_record r;
    if (f == NULL || event == NULL || strpbrk(event, "\r\n") != NULL || memchr(json, '\n', len) != NULL)
        return APS_E_ARGUMENT;
    r.event = strdup(event);
    r.json = malloc(len + 1);
    r.len = len;
    r.tag = tag;
    if (r.event == NULL || r.json == NULL) {
        free(r.event);
        free(r.json);
        return APS_E_NOMEM;
    }
    memcpy(r.json, json, len);
    r.json[len] = '\0';
    pthread_mutex_lock(&f->lock);
    if (!f->closed && f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        feed_record *grown = realloc(f->records, cap * sizeof *grown);
        if (grown != NULL) {
            f->records = grown;
            f->cap = cap;
        }
    }
    if (f->closed || f->count == f->cap) {
        int closed = f->closed;
        pthread_mutex_unlock(&f->lock);
        free(r.event);
        free(r.json);
        return closed ? APS_E_ARGUMENT : APS_E_NOMEM;
    }
    f->records[f->count++] = r;
    pthread_mutex_unlock(&f->lock);
    server_wake(f->srv);
    return APS_OK;
}

void ap_server_feed_close(ap_server_feed *f)
{
    int was;
    if (f == NULL)
        return;
    pthread_mutex_lock(&f->lock);
    was = f->closed;
    f->closed = 1;
    pthread_mutex_unlock(&f->lock);
    if (!was) /* (closing it again wakes nothing: its server may be gone by then) */
        server_wake(f->srv);
}

int ap_server_feed_closed(ap_server_feed *f, uint64_t *count)
{
    int closed;
    pthread_mutex_lock(&f->lock);
    closed = f->closed;
    if (count != NULL)
        *count = f->count;
    pthread_mutex_unlock(&f->lock);
    return closed;
}

size_t server_feed_put(ap_server_feed *f, uint64_t *next, uint32_t mask, char *out, size_t cap, size_t *need_out,
                       int *done)
{
    size_t n = 0;
    *need_out = 0;
    pthread_mutex_lock(&f->lock);
    while (*next < f->count) {
        const feed_record *r = &f->records[*next];
        char id[24];
        size_t need;
        int idn = snprintf(id, sizeof id, "%llu", (unsigned long long)*next);
        if ((r->tag & ~mask) != 0) { /* a bit the stream did not ask for */
            (*next)++;
            continue;
        }
        need = 7 + strlen(r->event) + 7 + r->len + 5 + (size_t)idn + 2;
        if (n + need > cap) {
            if (n == 0)
                *need_out = need; /* one record bigger than the room: the caller grows it */
            break;
        }
        n += (size_t)sprintf(out + n, "event: %s\ndata: ", r->event);
        memcpy(out + n, r->json, r->len);
        n += r->len;
        n += (size_t)sprintf(out + n, "\nid: %s\n\n", id);
        (*next)++;
    }
    *done = f->closed && *next >= f->count;
    pthread_mutex_unlock(&f->lock);
    return n;
}

int server_feed_behind(ap_server_feed *f, uint64_t next)
{
    int behind;
    pthread_mutex_lock(&f->lock);
    behind = next < f->count || f->closed;
    pthread_mutex_unlock(&f->lock);
    return behind;
}
