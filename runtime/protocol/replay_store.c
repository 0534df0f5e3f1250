/* replay_store.c - the replay store interface and its in-memory backend
 * (see aps/replay_store.h). */
/* clock_gettime for the blocking reads' deadline is POSIX: asked for here,
 * so -std=c99 builds of the runtime need no feature macro of their own. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "aps/replay_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The in-memory store: the ring itself, and a condition that appends
 * signal so that waiting readers need not poll. */
typedef struct mem_store {
    aps_replay_store base;
    aps_replay rb;
    pthread_mutex_t wait_lock;
    pthread_cond_t appended;
} mem_store;

static mem_store *mem_of(aps_replay_store *st)
{
    return (mem_store *)(void *)st;
}

static aps_status mem_append_many(aps_replay_store *st, const aps_replay_store_item *items,
                                  size_t count, uint64_t *seqs, aps_error *err)
{
    mem_store *m = mem_of(st);
    aps_status s = APS_OK;
    size_t i;
    for (i = 0; i < count && s == APS_OK; i++)
        s = aps_replay_append(&m->rb, items[i].bytes, items[i].len, &items[i].meta,
                              seqs != NULL ? &seqs[i] : NULL, err);
    /* Taking the lock orders the signal after a waiter's check (no lost wake-up). */
    pthread_mutex_lock(&m->wait_lock);
    pthread_cond_broadcast(&m->appended);
    pthread_mutex_unlock(&m->wait_lock);
    return s;
}

static aps_status mem_cursor_init(aps_replay_store *st, aps_replay_cursor *cur,
                                  const aps_filter *filter, const aps_replay_start *start,
                                  aps_error *err)
{
    aps_status s = aps_replay_cursor_init(cur, &mem_of(st)->rb, filter, start);
    if (s != APS_OK)
        return aps_error_set(err, s, SIZE_MAX, "invalid replay cursor arguments");
    return APS_OK;
}

static aps_status mem_read(aps_replay_store *st, aps_replay_cursor *cur, size_t max_events,
                           aps_replay_visit_fn visit, void *ctx, size_t *delivered,
                           aps_replay_gap *gap, aps_error *err)
{
    (void)err;
    return aps_replay_read(&mem_of(st)->rb, cur, max_events, visit, ctx, delivered, gap);
}

/* Something for the cursor: an event after it, or a miss to report. */
static int mem_due(mem_store *m, const aps_replay_cursor *cur)
{
    return cur->unknown_point || cur->baseline_before != 0 ||
           aps_replay_last_seq(&m->rb) >= cur->next_seq;
}

static aps_status mem_wait(aps_replay_store *st, const aps_replay_cursor *cur,
                           unsigned timeout_ms, aps_error *err)
{
    mem_store *m = mem_of(st);
    struct timespec until;
    int rc = 0, due;
    (void)err;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)(timeout_ms / 1000u);
    until.tv_nsec += (long)(timeout_ms % 1000u) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&m->wait_lock);
    while (!(due = mem_due(m, cur)) && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&m->appended, &m->wait_lock, &until);
    pthread_mutex_unlock(&m->wait_lock);
    return due ? APS_OK : APS_E_NOT_FOUND;
}

static aps_status mem_get(aps_replay_store *st, uint64_t seq, aps_replay_visit_fn visit,
                          void *ctx, aps_error *err)
{
    (void)err;
    return aps_replay_get(&mem_of(st)->rb, seq, visit, ctx);
}

static aps_status mem_find(aps_replay_store *st, aps_slice id, uint64_t *seq, aps_error *err)
{
    (void)err;
    return aps_replay_find_event_id(&mem_of(st)->rb, id, seq);
}

static aps_status mem_stats(aps_replay_store *st, aps_replay_stats *out, aps_error *err)
{
    (void)err;
    aps_replay_stats_get(&mem_of(st)->rb, out);
    return APS_OK;
}

static void mem_close(aps_replay_store *st)
{
    mem_store *m = mem_of(st);
    aps_replay_deinit(&m->rb);
    pthread_cond_destroy(&m->appended);
    pthread_mutex_destroy(&m->wait_lock);
    free(m);
}

static const aps_replay_store_ops mem_ops = { mem_append_many, mem_cursor_init, mem_read,
                                              mem_wait, mem_get, mem_find, mem_stats,
                                              mem_close };

aps_status aps_replay_store_open_memory(aps_replay_store **out, const aps_replay_options *opt,
                                        aps_error *err)
{
    mem_store *m;
    aps_status s;
    if (out == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no store pointer given");
    *out = NULL;
    m = (mem_store *)calloc(1, sizeof *m);
    if (m == NULL)
        return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory for the replay store");
    s = aps_replay_init(&m->rb, opt, err);
    if (s != APS_OK) {
        free(m);
        return s;
    }
    if (pthread_mutex_init(&m->wait_lock, NULL) != 0) {
        aps_replay_deinit(&m->rb);
        free(m);
        return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no mutex for the replay store");
    }
    if (pthread_cond_init(&m->appended, NULL) != 0) {
        pthread_mutex_destroy(&m->wait_lock);
        aps_replay_deinit(&m->rb);
        free(m);
        return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no condition for the replay store");
    }
    m->base.ops = &mem_ops;
    *out = &m->base;
    return APS_OK;
}

aps_replay *aps_replay_store_memory_buffer(aps_replay_store *st)
{
    return st != NULL && st->ops == &mem_ops ? &mem_of(st)->rb : NULL;
}

void aps_replay_store_close(aps_replay_store *st)
{
    if (st != NULL)
        st->ops->close(st);
}

#define CHECK_STORE(st)                                                                   \
    do {                                                                                  \
        if ((st) == NULL)                                                                 \
            return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no replay store given"); \
    } while (0)

aps_status aps_replay_store_append(aps_replay_store *st, const void *bytes, size_t len,
                                   const aps_replay_meta *meta, uint64_t *seq, aps_error *err)
{
    aps_replay_store_item it;
    CHECK_STORE(st);
    if (meta == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "invalid replay append arguments");
    it.bytes = bytes;
    it.len = len;
    it.meta = *meta;
    return st->ops->append_many(st, &it, 1, seq, err);
}

aps_status aps_replay_store_append_many(aps_replay_store *st, const aps_replay_store_item *items,
                                        size_t count, uint64_t *seqs, aps_error *err)
{
    CHECK_STORE(st);
    if (items == NULL && count > 0)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no items given");
    return st->ops->append_many(st, items, count, seqs, err);
}

aps_status aps_replay_store_cursor_init(aps_replay_store *st, aps_replay_cursor *cur,
                                        const aps_filter *filter, const aps_replay_start *start,
                                        aps_error *err)
{
    CHECK_STORE(st);
    return st->ops->cursor_init(st, cur, filter, start, err);
}

aps_status aps_replay_store_read(aps_replay_store *st, aps_replay_cursor *cur, size_t max_events,
                                 aps_replay_visit_fn visit, void *ctx, size_t *delivered,
                                 aps_replay_gap *gap, aps_error *err)
{
    if (delivered != NULL)
        *delivered = 0;
    CHECK_STORE(st);
    return st->ops->read(st, cur, max_events, visit, ctx, delivered, gap, err);
}

aps_status aps_replay_store_wait(aps_replay_store *st, const aps_replay_cursor *cur,
                                 unsigned timeout_ms, aps_error *err)
{
    CHECK_STORE(st);
    if (cur == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no cursor given");
    return st->ops->wait(st, cur, timeout_ms, err);
}

aps_status aps_replay_store_get(aps_replay_store *st, uint64_t seq, aps_replay_visit_fn visit,
                                void *ctx, aps_error *err)
{
    CHECK_STORE(st);
    return st->ops->get(st, seq, visit, ctx, err);
}

aps_status aps_replay_store_find_event_id(aps_replay_store *st, aps_slice event_id,
                                          uint64_t *seq, aps_error *err)
{
    CHECK_STORE(st);
    return st->ops->find_event_id(st, event_id, seq, err);
}

aps_status aps_replay_store_stats_get(aps_replay_store *st, aps_replay_stats *out,
                                      aps_error *err)
{
    CHECK_STORE(st);
    if (out == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no stats given");
    return st->ops->stats_get(st, out, err);
}
