/*
 * server_internal.h - what the two files of the thread server share
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
    aps_replay_store *log;
    pthread_mutex_t lock;       /* numbering and appending: one event at a time */
    uint64_t last_seq;          /* read by the loop with __atomic */
    uint64_t seq_streamed;      /* the furthest seq any stream of it was sent (service thread only) */
    char *state;                /* `data` of the latest root values event (under lock) */
    size_t state_len;
    aps_json_writer json;       /* under lock */
    char *record;               /* the SSE record being built (under lock) */
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

/* The thread named id[0..len), made when missing and `create` (NULL: none, too many, or no memory). */
APS_INTERNAL srv_thread *server_thread(ap_server *s, const char *id, size_t len, int create);

/* Frees every thread of the server. */
APS_INTERNAL void server_threads_free(ap_server *s);

#endif /* AP_SERVER_INTERNAL_H */
