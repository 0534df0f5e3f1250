/*
 * aps/replay.h - the server-side replay buffer of one thread: a ring of
 * encoded events with their seq, eventId, channel and namespace kept beside
 * the bytes, cursors that replay from a point and then follow live, and the
 * latest full `values` state per namespace (the baseline a new `values`
 * subscriber starts from). No client ever silently loses an event: whenever
 * events a reader should have seen are gone, the read says so
 * (APS_E_MISSED with how many and from where), and the client can resync
 * with `state.get`.
 *
 * Writer (one thread, e.g. the run producing events):
 *
 *     aps_replay rb;
 *     aps_replay_options opt = { 0 };
 *     opt.max_events = 10000; opt.max_bytes = 16u << 20;
 *     if (aps_replay_init(&rb, &opt, &err) != APS_OK) ...
 *     seq = aps_replay_next_seq(&rb);      (encode it into the event)
 *     aps_replay_meta m = { id, channel, custom_name, ns };
 *     if (aps_replay_append(&rb, bytes, len, &m, &seq, &err) != APS_OK) ...
 *
 * Reader (any number, each on its own thread with its own cursor):
 *
 *     aps_replay_start from = { APS_REPLAY_FROM_SEQ, since };  (or zero: new subscriber)
 *     aps_replay_cursor cur;
 *     if (aps_replay_cursor_init(&cur, &rb, &filter, &from) != APS_OK) ...
 *     for (;;) {
 *         st = aps_replay_read(&rb, &cur, 64, send_event, conn, &n, &gap);
 *         if (st == APS_E_MISSED) tell the client: missed gap.lost, oldest gap.oldest_seq
 *         else if (n == 0) wait for the writer (poll aps_replay_last_seq, a condition, ...)
 *     }
 *
 * Seqs start at 1, grow by one per appended event and are never reused, even
 * after eviction. Events are evicted oldest first when the ring would exceed
 * `max_events` events or `max_bytes` bytes. Every event ever appended with a
 * seq below the oldest buffered one has been evicted.
 *
 * Byte accounting: an event occupies one contiguous record of the byte ring:
 * its bytes plus its metadata (4 bytes per namespace segment, the segment
 * bytes, the custom name, the eventId), rounded up to 8 (at least 8). A
 * record never wraps around the end of the ring: when it does not fit before
 * the end it starts at offset 0, and the tail space it skipped stays unused
 * until the ring wraps again. So every record of at most max_bytes fits, and
 * visitors always get an event's bytes in one piece.
 *
 * Memory: aps_replay_init allocates everything once (slot table, byte ring,
 * eventId index, baseline table) through the allocator hooks. aps_replay_append allocates
 * only for the values baseline: one block per stored state, freed when a
 * newer state of that namespace replaces it. Nothing else allocates; except
 * with `grow`, where the byte ring starts at 64 KiB (or max_bytes when less)
 * and an append that would evict for room doubles it instead, up to
 * max_bytes (the records are moved: amortised O(1) per byte), so a buffer
 * sized for the worst case costs only what its events take.
 *
 * Thread-safety: one writer (append) and any number of readers
 * (cursor_init, read, get, find_event_id, stats_get, next_seq, last_seq) may
 * run concurrently on different threads; a mutex inside the buffer
 * serialises them. (Several appending threads would also be safe, but then
 * aps_replay_next_seq no longer predicts the seq an append gets.) A cursor
 * belongs to one reader at a time. Visitor callbacks run while the buffer is
 * locked: they must not call into the same buffer and should be quick (copy
 * the bytes out, or encode them into a connection buffer). init and deinit
 * need exclusive use.
 */
#ifndef APS_REPLAY_H
#define APS_REPLAY_H

#include "aps/arena.h"
#include "aps/channel.h"
#include "aps/common.h"
#include "aps/filter.h"
#include "aps/json.h"
#include "aps/namespace.h"

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults used when an option is 0. */
#define APS_REPLAY_DEFAULT_EVENTS 4096u
#define APS_REPLAY_DEFAULT_BYTES (4u << 20)
#define APS_REPLAY_DEFAULT_BASELINE_NAMESPACES 64u

/*
 * How a buffer is sized. All zero means: APS_REPLAY_DEFAULT_EVENTS events,
 * APS_REPLAY_DEFAULT_BYTES bytes, a baseline of up to
 * APS_REPLAY_DEFAULT_BASELINE_NAMESPACES namespaces and max_bytes bytes,
 * malloc/free, hash seed 0.
 */
typedef struct aps_replay_options {
    size_t max_events;          /* ring capacity in events */
    size_t max_bytes;           /* ring capacity in bytes (records, see above) */
    size_t baseline_namespaces; /* most namespaces whose latest values state is kept */
    size_t baseline_bytes;      /* most bytes of kept values states (event bytes + namespace) */
    aps_allocator allocator;    /* zero: malloc/free */
    uint64_t hash_seed;         /* seeds the eventId index hash */
    int grow;                   /* the byte ring starts small and doubles up to max_bytes as
                                   events need it (appends may then allocate); 0: all at init */
} aps_replay_options;

/*
 * What a root `lifecycle` event says about the thread's runs (the buffer
 * does not parse events: the writer tells it, see ap_event_replay_meta).
 * A run starts at an ACTIVE event appended while no run is open, and the
 * next END closes it; an ACTIVE event of an open run starts nothing (a
 * `started` then `running` is one run). FROM_RUN replays from that start.
 */
typedef enum aps_replay_run_mark {
    APS_RUN_NONE = 0,   /* any other event */
    APS_RUN_ACTIVE,     /* root lifecycle `started` or `running` */
    APS_RUN_END         /* root lifecycle `completed`, `failed` or `interrupted` */
} aps_replay_run_mark;

/*
 * What the writer already knows about an event it appends: nothing here is
 * parsed from the bytes. Slices are borrowed for the call only; the buffer
 * copies them. An event is a values event (feeds the baseline) exactly when
 * its channel is APS_CHANNEL_VALUES.
 */
typedef struct aps_replay_meta {
    aps_slice event_id;     /* ptr NULL: the event has no eventId (not indexed) */
    aps_channel channel;    /* from aps_channel_of_method */
    aps_slice custom_name;  /* `data.name` of a custom event; ptr NULL or len 0: none */
    aps_namespace ns;       /* `params.namespace` */
    aps_replay_run_mark run; /* where a root lifecycle event puts the thread's runs */
} aps_replay_meta;

/*
 * One event handed to a visitor. Every pointer is valid only during the
 * callback (the writer may overwrite the ring as soon as it returns).
 */
typedef struct aps_replay_event {
    uint64_t seq;
    const uint8_t *bytes;   /* the encoded event, as appended */
    size_t len;
    aps_slice event_id;     /* ptr NULL when the event has none */
    aps_channel channel;
    aps_slice custom_name;  /* ptr NULL when none */
    aps_namespace_view ns;
    int baseline;           /* 1: delivered from the values baseline (it may be evicted from the ring) */
} aps_replay_event;

/*
 * Visitor: returns 0 to take the event and go on, non-zero to stop without
 * taking it (it is offered again on the next read, e.g. when the
 * connection's output buffer is full).
 */
typedef int (*aps_replay_visit_fn)(void *ctx, const aps_replay_event *ev);

/* The explicit "you missed events" answer. */
typedef struct aps_replay_gap {
    uint64_t lost;          /* events the reader will never get (every channel counts) */
    uint64_t oldest_seq;    /* the oldest seq still buffered; delivery resumes there */
} aps_replay_gap;

/* Where a new cursor starts. */
typedef enum aps_replay_from {
    /* A new subscription: the values baseline (for filters with `values`),
     * then events appended after the cursor was created. */
    APS_REPLAY_FROM_NOW = 0,
    /* A new subscription that also wants everything still buffered: the
     * baseline of namespaces whose latest values event was already evicted,
     * then every buffered event, then live. */
    APS_REPLAY_FROM_OLDEST,
    /* Resume (`since`): the events with seq > `seq`, then live. No baseline. */
    APS_REPLAY_FROM_SEQ,
    /* Resume (`sinceEventId`, `lastEventId`): the events after the one with
     * that eventId, then live. No baseline. */
    APS_REPLAY_FROM_EVENT_ID,
    /* A new subscription to the current run (what the reference client
     * expects of a subscription without `since`): the values baseline of
     * namespaces whose latest state is older than the run, then every event
     * since the current run's start (aps_replay_run_mark), then live. With
     * no run seen, every buffered event, as FROM_OLDEST. */
    APS_REPLAY_FROM_RUN
} aps_replay_from;

/*
 * A replay point. All zero: APS_REPLAY_FROM_NOW.
 *
 * Resume rules (each tested in tests/replay/):
 *  - FROM_SEQ with seq + 1 >= the oldest buffered seq (so seq 0 while
 *    nothing has been evicted): no miss; delivers the buffered events after
 *    seq, none when seq is the last appended one.
 *  - FROM_SEQ with events after seq evicted: the first read returns
 *    APS_E_MISSED with lost = oldest_seq - (seq + 1), then the buffered ones.
 *  - FROM_SEQ with seq beyond the last appended seq (a point this buffer
 *    never produced, e.g. from before a server restart) and FROM_EVENT_ID
 *    with an eventId not in the buffer (evicted, or never seen): the
 *    client's position is unknown, so the first read returns APS_E_MISSED
 *    with lost = every event evicted so far (oldest_seq - 1, which may be 0:
 *    the miss is reported anyway), then every buffered event.
 *  - FROM_EVENT_ID with an eventId that several buffered events carry:
 *    resumes after the oldest of them, so a duplicate can cause a repeat
 *    but never a skip.
 *  - FROM_RUN whose run started before the oldest buffered event: the
 *    first read returns APS_E_MISSED with lost = the run's events evicted
 *    (oldest_seq - run start), then the buffered ones.
 */
typedef struct aps_replay_start {
    aps_replay_from from;
    uint64_t seq;           /* FROM_SEQ: the last seq the client saw */
    aps_slice event_id;     /* FROM_EVENT_ID: the last eventId the client saw */
} aps_replay_start;

/*
 * A reader's position. Caller storage; treat the members as private. Needs
 * no deinit. The filter it was created with must outlive it.
 */
typedef struct aps_replay_cursor {
    const aps_filter *filter;   /* NULL: every event */
    uint64_t next_seq;          /* the next ring seq to look at */
    uint64_t baseline_before;   /* baseline states with seq below this are due (0: none) */
    uint64_t baseline_done;     /* highest baseline seq already delivered */
    uint64_t baseline_drops;    /* the buffer's drop count when the cursor started */
    int unknown_point;          /* report a miss even when nothing was evicted */
    uint64_t epoch;             /* Redis backend: the log instance the cursor reads (0: none yet) */
} aps_replay_cursor;

/* A snapshot of a buffer's counters (aps_replay_stats). */
typedef struct aps_replay_stats {
    uint64_t oldest_seq;        /* oldest buffered seq; last_seq + 1 when empty */
    uint64_t last_seq;          /* last appended seq; 0 before the first append */
    size_t events;              /* events buffered */
    size_t bytes;               /* ring bytes in use, skipped tail space included */
    size_t baseline_namespaces; /* namespaces with a kept values state */
    size_t baseline_bytes;      /* bytes of kept values states */
    uint64_t baseline_drops;    /* values states that could not be kept (see append) */
    uint64_t run_start;         /* seq that started the current run (0: none yet) */
} aps_replay_stats;

typedef struct aps_replay_slot aps_replay_slot;
typedef struct aps_replay_base aps_replay_base;

/* A replay buffer. Caller storage; treat the members as private. */
typedef struct aps_replay {
    pthread_mutex_t lock;
    aps_replay_options opt;
    aps_replay_slot *slots;     /* slot of seq s: slots[s & slot_mask] */
    uint64_t slot_mask;
    uint8_t *ring;              /* ring_cap bytes, records 8-aligned */
    size_t ring_cap;            /* max_bytes, or less while a growing ring grows */
    uint64_t *index;            /* eventId index: open addressing, seq or 0 */
    uint32_t *index_hash;
    uint64_t index_mask;
    aps_replay_base *base;      /* baseline_namespaces entries */
    size_t base_count;
    size_t base_bytes;
    uint64_t base_drops;
    uint64_t oldest;            /* oldest buffered seq (last + 1 when empty) */
    uint64_t last;              /* last appended seq */
    size_t bytes_used;
    uint64_t run_start;         /* seq that started the current run (0: none yet) */
    int run_open;               /* the current run has not ended */
} aps_replay;

/*
 * Initialises `rb` (caller storage) with `opt` (NULL: all defaults) and
 * allocates its storage once. Returns APS_OK; APS_E_ARGUMENT (rb NULL);
 * APS_E_RANGE (a capacity too large to index: max_bytes above 2^32 - 8,
 * max_events above 2^30, baseline_namespaces above 2^16); APS_E_NOMEM (nothing stays allocated). `err` may
 * be NULL.
 */
APS_NODISCARD aps_status aps_replay_init(aps_replay *rb, const aps_replay_options *opt,
                                         aps_error *err);

/* Frees everything `rb` holds; cursors on it become unusable. NULL-safe. */
void aps_replay_deinit(aps_replay *rb);

/*
 * The seq the next aps_replay_append will assign, so the single writer can
 * encode it into the event first. Thread-safe.
 */
uint64_t aps_replay_next_seq(aps_replay *rb);

/* The last appended seq (0 before the first append). Thread-safe. */
uint64_t aps_replay_last_seq(aps_replay *rb);

/*
 * Appends a copy of the encoded event `bytes` (`len` bytes) with its
 * metadata, assigns it the next seq (stored in *seq when seq is not NULL)
 * and evicts the oldest events while either capacity would be exceeded.
 * A values event also replaces its namespace's baseline state; when that
 * state cannot be kept (the namespace table is full and its least recently
 * updated namespace is evicted to make room, or the bytes exceed the
 * baseline budget and least recently updated states are evicted until they
 * fit, or the state alone exceeds the budget, or its allocation fails), the
 * buffer counts a baseline drop, and every later new `values` subscription
 * is told it missed (see aps_replay_read): never a stale or silently
 * incomplete baseline. The append itself still succeeds.
 * Returns APS_OK; APS_E_ARGUMENT (rb or meta NULL, bytes NULL with len > 0,
 * a channel outside aps_channel, a run mark outside aps_replay_run_mark,
 * a NULL slice array with a non-zero count); APS_E_LIMIT (the record is
 * bigger than max_bytes or than 32-bit lengths allow: nothing appended,
 * nothing evicted, no seq used). `err` may be NULL. Writer only.
 */
APS_NODISCARD aps_status aps_replay_append(aps_replay *rb, const void *bytes, size_t len,
                                           const aps_replay_meta *meta, uint64_t *seq,
                                           aps_error *err);

/*
 * Starts `cur` (caller storage) at `start` (NULL: FROM_NOW) with `filter`
 * (NULL: every event; borrowed, must outlive the cursor). Misses are not
 * reported here but by the first aps_replay_read, so that they are exact
 * at the moment the reader acts on them.
 * Returns APS_OK; APS_E_ARGUMENT (cur or rb NULL, an unknown `from`, an
 * event_id slice with ptr NULL and len > 0). Thread-safe.
 */
APS_NODISCARD aps_status aps_replay_cursor_init(aps_replay_cursor *cur, aps_replay *rb,
                                                const aps_filter *filter,
                                                const aps_replay_start *start);

/*
 * Delivers to `visit` up to `max_events` events that pass the cursor's
 * filter, in seq order (baseline states first, in seq order, then the ring),
 * and advances the cursor past them and past the non-matching events it
 * scanned. Stores the number delivered in *delivered (NULL: not stored).
 * Returns:
 *  - APS_OK: 0..max_events events delivered; 0 means the reader is caught
 *    up (or `visit` refused the first event).
 *  - APS_E_MISSED: events this reader needed are gone; *gap (NULL: not
 *    stored) says how many and where delivery resumes. Nothing is delivered
 *    by this call; the cursor moves to the oldest buffered event, so the
 *    next read delivers the buffered events (best effort). Reported once per
 *    gap. A new `values` subscription started after a baseline drop gets
 *    this answer first with lost = the number of drops so far (a namespace
 *    state it should have received may be among them), and again with the
 *    count of new drops if states are dropped while its baseline is still
 *    being delivered (conservatively: the dropped state may be one it
 *    already had).
 *  - APS_E_ARGUMENT: rb, cur or visit NULL.
 * Thread-safe (one call per cursor at a time); `visit` runs under the lock.
 */
APS_NODISCARD aps_status aps_replay_read(aps_replay *rb, aps_replay_cursor *cur,
                                         size_t max_events, aps_replay_visit_fn visit,
                                         void *ctx, size_t *delivered, aps_replay_gap *gap);

/*
 * Looks an event up by seq in O(1) and hands it to `visit` (its return value
 * is ignored). Returns APS_OK; APS_E_NOT_FOUND (never appended or already
 * evicted; baseline copies are not searched); APS_E_ARGUMENT. Thread-safe.
 */
APS_NODISCARD aps_status aps_replay_get(aps_replay *rb, uint64_t seq, aps_replay_visit_fn visit,
                                        void *ctx);

/*
 * Finds the oldest buffered event carrying `event_id` (O(1) expected) and
 * stores its seq in *seq. Returns APS_OK; APS_E_NOT_FOUND; APS_E_ARGUMENT
 * (rb or seq NULL, id ptr NULL with len > 0). Thread-safe.
 */
APS_NODISCARD aps_status aps_replay_find_event_id(aps_replay *rb, aps_slice event_id,
                                                  uint64_t *seq);

/* Fills *out with a consistent snapshot of the counters. Thread-safe. */
void aps_replay_stats_get(aps_replay *rb, aps_replay_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* APS_REPLAY_H */
