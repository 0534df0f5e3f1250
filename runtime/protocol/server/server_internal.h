/*
 * server_internal.h - what the files of the thread server share
 * (ap_server.h): a thread of the product's, the server, and the calls
 * ap_server.c makes into ap_server_threads.c. Not installed.
 */
#ifndef AP_SERVER_INTERNAL_H
#define AP_SERVER_INTERNAL_H

#include <pthread.h>

#include <libwebsockets.h>

#include "ap_server.h"
#include "aps/replay_store.h"

#define MAX_ID 256u /* thread ids, subscription ids, header values we keep */


/* ---- threads ------------------------------------------------------------------ */

typedef struct srv_thread {
    char *id;
    size_t id_len;
    struct ap_server *srv;
    aps_replay_store *log;      /* the service thread's reads (and everything, in memory) */
    aps_replay_store *writer;   /* appends, under lock: `log` in memory, a connection of its own when shared */
    aps_replay_store *watch;    /* a shared log: the watcher's connection (NULL in memory) */
    pthread_t watcher;          /* a shared log: wakes the loop when any replica appends */
    int watching;               /* the watcher runs */
    int unwatch;                /* tells the watcher to end (__atomic) */
    pthread_mutex_t lock;       /* numbering and appending: one event at a time */
    uint64_t last_seq;          /* read by the loop with __atomic */
    uint64_t seq_streamed;      /* the furthest seq any stream of it was sent (service thread only) */
    char *state;                /* `data` of the latest root values event (under lock) */
    size_t state_len;
    aps_json_writer json;       /* under lock */
    char *record;               /* the record being built (under lock) */
    size_t record_cap;
    struct srv_thread *next;
} srv_thread;

struct conn;

struct ap_server {
    ap_server_options opt;
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    pthread_t loop;
    int loop_started;
    unsigned port;
    pthread_mutex_t lock;       /* the thread list */
    srv_thread *threads;
    size_t nthreads;
    struct conn *streams;              /* service thread only */
    size_t connections;         /* service thread only */
    uint64_t next_sub_id;
    volatile int stopping;      /* set by ap_server_stop, read by the loop */
    uint64_t stop_deadline_ms;
    lws_sorted_usec_list_t heartbeat;
    int wake_pending;           /* a wake-up of the loop is on its way (__atomic): publishers skip theirs,
                                   which would each make the loop walk every stream again */
    unsigned char *chunk;       /* LWS_PRE + what one write sends: one for all connections, since
                                   only the service thread writes and lws_write keeps its own copy
                                   of what the socket did not take */
    size_t chunk_cap;
    char *cors;                 /* opt.cors_origins, copied */
    char *api_key;
};

/* One log line through opt.log (standard error without one). */
APS_INTERNAL void server_log(ap_server *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * The length of the printable UTF-8 character at p[0..n): 1-4, or 0 when it
 * is a control character (C0, DEL, C1) or not well-formed UTF-8.
 */
APS_INTERNAL size_t server_utf8_char(const unsigned char *p, size_t n);

/*
 * Writes in[0..n) into out[0..cap) (NUL-terminated, cut short when full)
 * with every byte that is not printable UTF-8, and every backslash, as
 * \xNN: what the log prints of a request cannot forge a line or smuggle a
 * terminal escape.
 */
APS_INTERNAL void server_escape(char *out, size_t cap, const char *in, size_t n);

/* The thread named id[0..len), made when missing and `create` (NULL: none, too many, or no memory). */
APS_INTERNAL srv_thread *server_thread(ap_server *s, const char *id, size_t len, int create);

/* Wakes the service thread, unless a wake-up it has not yet taken is on its way. Any thread. */
APS_INTERNAL void server_wake(ap_server *s);

/* Ends the watchers of shared logs (before the loop's context goes). */
APS_INTERNAL void server_threads_unwatch(ap_server *s);

/* Frees every thread of the server. */
APS_INTERNAL void server_threads_free(ap_server *s);

/* ---- records (ap_server_records.c) --------------------------------------------------- */

/* Where the JSON of a record of the log starts ('{'), 0 when it is not one of the server's. */
APS_INTERNAL size_t server_record_json(const uint8_t *p, size_t n);

/*
 * Where a resume after eventId `start->event_id` begins in `t`'s log. An
 * eventId the server stamped is its event's seq in decimal and is not kept
 * in the log's index: such an id becomes FROM_SEQ when the event it names
 * is in the log and has no eventId of its own. A resume (by eventId or
 * seq) of a log that has never held an event becomes FROM_SEQ 0: nothing
 * was missed, so no miss is reported. Service thread.
 */
APS_INTERNAL void server_resume_point(srv_thread *t, aps_replay_start *start);

/*
 * Writes the event `ev` of a thread's log as it is sent, into `out` (room
 * for server_event_size bytes): its SSE record (`sse`) or its JSON alone.
 * The log keeps each event without its `seq` and `eventId`, which only the
 * log knows for sure (a shared log numbers every replica's appends): they
 * are written here. Returns the bytes written, 0 for a record that is not
 * the server's (skipped).
 */
APS_INTERNAL size_t server_event_size(const aps_replay_event *ev);
APS_INTERNAL size_t server_event_put(char *out, const aps_replay_event *ev, int sse, aps_key_case kc);

/* ---- feeds (ap_server_feed.c) ------------------------------------------------------- */

/*
 * Writes the SSE records of `f` from *next whose tag has no bit outside `mask` into
 * out[0..cap), as many as fit; *next moves past them (and past the records
 * the mask skips). When the first record does not fit, *need is its size
 * (grow and call again), else 0. *done: the feed is closed and read to its
 * end. Returns the bytes written.
 */
APS_INTERNAL size_t server_feed_put(ap_server_feed *f, uint64_t *next, uint32_t mask, char *out, size_t cap,
                                    size_t *need, int *done);

/* Whether a reader at `next` has records to read, or the feed closed. */
APS_INTERNAL int server_feed_behind(ap_server_feed *f, uint64_t next);

#endif /* AP_SERVER_INTERNAL_H */
