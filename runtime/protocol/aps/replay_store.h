/*
 * aps/replay_store.h - the replay log behind one interface, whatever holds
 * it: the in-memory ring of aps/replay.h (one process), or a shared log that
 * several server replicas append to and answer resumes from (Redis Streams,
 * aps/replay_redis.h, an optional library). Both give the same answers to
 * the same calls: seqs from 1 without gaps, since / sinceEventId, the
 * explicit miss (APS_E_MISSED with the lost count and the oldest buffered
 * seq), channel, custom:NAME, namespace and depth filters, and the latest
 * `values` state per namespace kept apart from eviction. tests/replay runs
 * one test-suite against each backend.
 *
 *     aps_replay_store *st;
 *     if (aps_replay_store_open_memory(&st, &opt, &err) != APS_OK) ...
 *     aps_replay_store_append(st, bytes, len, &meta, &seq, &err);
 *     aps_replay_store_cursor_init(st, &cur, &filter, &from, &err);
 *     for (;;) {
 *         s = aps_replay_store_read(st, &cur, 64, send, conn, &n, &gap, &err);
 *         if (s == APS_E_MISSED) tell the client (gap.lost, gap.oldest_seq);
 *         else if (s != APS_OK) the store failed (err says why);
 *         else if (n == 0) aps_replay_store_wait(st, &cur, 15000, &err);
 *     }
 *     aps_replay_store_close(st);
 *
 * Statuses are those of aps/replay.h, plus APS_E_IO when a shared store
 * cannot be reached or refuses a command (its message says which and why).
 * The meaning of aps_replay_event, _meta, _start, _gap and _stats is that of
 * aps/replay.h; the cursor is an aps_replay_cursor created by the store it
 * is used with.
 *
 * Thread-safety: the memory store may be shared by threads exactly as
 * aps/replay.h allows. A store of another backend is one connection: one
 * thread at a time (open one per thread; they may all name the same run).
 */
#ifndef APS_REPLAY_STORE_H
#define APS_REPLAY_STORE_H

#include "aps/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aps_replay_store aps_replay_store;

/* One event of a batch append (aps_replay_store_append_many). */
typedef struct aps_replay_store_item {
    const void *bytes;
    size_t len;
    aps_replay_meta meta;
} aps_replay_store_item;

/* What a backend implements; every member is required. */
typedef struct aps_replay_store_ops {
    aps_status (*append_many)(aps_replay_store *st, const aps_replay_store_item *items,
                              size_t count, uint64_t *seqs, aps_error *err);
    aps_status (*cursor_init)(aps_replay_store *st, aps_replay_cursor *cur,
                              const aps_filter *filter, const aps_replay_start *start,
                              aps_error *err);
    aps_status (*read)(aps_replay_store *st, aps_replay_cursor *cur, size_t max_events,
                       aps_replay_visit_fn visit, void *ctx, size_t *delivered,
                       aps_replay_gap *gap, aps_error *err);
    aps_status (*wait)(aps_replay_store *st, const aps_replay_cursor *cur, unsigned timeout_ms,
                       aps_error *err);
    aps_status (*get)(aps_replay_store *st, uint64_t seq, aps_replay_visit_fn visit, void *ctx,
                      aps_error *err);
    aps_status (*find_event_id)(aps_replay_store *st, aps_slice event_id, uint64_t *seq,
                                aps_error *err);
    aps_status (*stats_get)(aps_replay_store *st, aps_replay_stats *out, aps_error *err);
    void (*close)(aps_replay_store *st);
} aps_replay_store_ops;

/* The head of every backend's store object. */
struct aps_replay_store {
    const aps_replay_store_ops *ops;
};

/*
 * Opens an in-memory store: an aps_replay buffer sized by `opt` (NULL: the
 * defaults of aps/replay.h) plus a condition variable for
 * aps_replay_store_wait. Stores it in *out. Returns APS_OK, APS_E_ARGUMENT
 * (out NULL), or aps_replay_init's statuses. `err` may be NULL.
 */
APS_NODISCARD aps_status aps_replay_store_open_memory(aps_replay_store **out,
                                                      const aps_replay_options *opt,
                                                      aps_error *err);

/*
 * The buffer under a store from aps_replay_store_open_memory (NULL for any
 * other store): for its memory-only introspection.
 */
aps_replay *aps_replay_store_memory_buffer(aps_replay_store *st);

/* Closes `st` and frees everything it holds. NULL-safe. */
void aps_replay_store_close(aps_replay_store *st);

/*
 * Appends one event (aps_replay_append) and stores its seq in *seq (NULL:
 * not stored). A shared store assigns the seq itself, so that producers in
 * several processes never reuse or skip one.
 */
APS_NODISCARD aps_status aps_replay_store_append(aps_replay_store *st, const void *bytes,
                                                 size_t len, const aps_replay_meta *meta,
                                                 uint64_t *seq, aps_error *err);

/*
 * Appends `count` events in order, as one round trip where the backend can
 * (Redis pipelines them), and stores the seq of items[i] in seqs[i] (seqs
 * NULL: not stored). Another producer's events may interleave. On an error
 * seqs[i] is 0 for every item not known to be appended (an item Redis
 * refused, say out of memory, and the items queued behind it).
 */
APS_NODISCARD aps_status aps_replay_store_append_many(aps_replay_store *st,
                                                      const aps_replay_store_item *items,
                                                      size_t count, uint64_t *seqs,
                                                      aps_error *err);

/* aps_replay_cursor_init, on this store. */
APS_NODISCARD aps_status aps_replay_store_cursor_init(aps_replay_store *st,
                                                      aps_replay_cursor *cur,
                                                      const aps_filter *filter,
                                                      const aps_replay_start *start,
                                                      aps_error *err);

/* aps_replay_read, on this store (plus APS_E_IO and APS_E_SYNTAX). */
APS_NODISCARD aps_status aps_replay_store_read(aps_replay_store *st, aps_replay_cursor *cur,
                                               size_t max_events, aps_replay_visit_fn visit,
                                               void *ctx, size_t *delivered,
                                               aps_replay_gap *gap, aps_error *err);

/*
 * Blocks until events after the cursor's position exist, or up to
 * `timeout_ms` milliseconds: the live tail, without polling (a condition
 * variable in memory, XREAD BLOCK on Redis). Returns APS_OK when the next
 * aps_replay_store_read has something to say, APS_E_NOT_FOUND on timeout.
 */
APS_NODISCARD aps_status aps_replay_store_wait(aps_replay_store *st,
                                               const aps_replay_cursor *cur,
                                               unsigned timeout_ms, aps_error *err);

/* aps_replay_get, on this store. */
APS_NODISCARD aps_status aps_replay_store_get(aps_replay_store *st, uint64_t seq,
                                              aps_replay_visit_fn visit, void *ctx,
                                              aps_error *err);

/* aps_replay_find_event_id, on this store. */
APS_NODISCARD aps_status aps_replay_store_find_event_id(aps_replay_store *st,
                                                        aps_slice event_id, uint64_t *seq,
                                                        aps_error *err);

/*
 * aps_replay_stats_get, on this store. A shared store reports `bytes` as 0
 * (Redis accounts its own memory, see docs/redis.md).
 */
APS_NODISCARD aps_status aps_replay_store_stats_get(aps_replay_store *st,
                                                    aps_replay_stats *out, aps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* APS_REPLAY_STORE_H */
