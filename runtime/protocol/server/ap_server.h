/*
 * ap_server.h - serving the Agent Streaming Protocol over HTTP/SSE and
 * WebSocket: threads whose events a product publishes and whose commands it
 * answers, on libwebsockets (one service thread, one epoll loop). An
 * optional library beside the protocol companion, built when libwebsockets
 * is found (docs/server.md).
 *
 *     static aps_status on_command(void *user, ap_server *srv, const ap_server_command *c,
 *                                  ap_message_t *response, aps_arena *arena)
 *     {
 *         ap_result_data_t *r = ap_response_success(response, c->command);
 *         ... fill r, start the run (on another thread: this one serves every client)
 *         return APS_OK;
 *     }
 *
 *     ap_server_options opt = { 0 };
 *     opt.port = 8123; opt.on_command = on_command;
 *     if (ap_server_start(&srv, &opt, &err) != APS_OK) ...
 *     ap_server_publish(srv, thread, &event, NULL, &err);   (from any thread)
 *     ap_server_stop(srv);
 *
 * Endpoints, for every thread id (both spellings of the stream path: the
 * reference client's `/stream/events` and the protocol text's `/stream`):
 *
 *     POST    /threads/{id}/stream/events   SSE: the body is an EventStreamRequest
 *     POST    /threads/{id}/stream          the same
 *     GET     /threads/{id}/stream/events   WebSocket upgrade: commands in band
 *     GET     /threads/{id}/stream          the same
 *     POST    /threads/{id}/commands        a Command; the response as JSON
 *     GET     /threads/{id}/state           the latest root `values`, 404 without one
 *     OPTIONS any of them                   CORS preflight
 *     GET     whatever opt.routes name      the embedder's read-only pages (ap_server_route)
 *     any     any other path, with opt.api  the embedder's REST API (ap_server_api_fn): bodies,
 *                                           SSE streams of a feed, long polls (docs/rest.md)
 *
 * The server answers `subscription.subscribe`, `.unsubscribe` and
 * `.reconnect` on a WebSocket itself; every other command goes to
 * `on_command`. Events are written in `key_case` (snake_case by default,
 * what the reference client reads); requests and commands are read in
 * either spelling.
 *
 * Thread-safety: ap_server_publish and ap_server_state may be called from
 * any thread; on_command, the routes and log run on the service thread and
 * must not block it. start and stop need exclusive use.
 */
#ifndef AP_SERVER_H
#define AP_SERVER_H

#include "ap.h"
#include "aps/replay_store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ap_server ap_server;

/* A command for the product (ap_server_command_fn). Everything is borrowed for the call. */
typedef struct ap_server_command {
    aps_slice thread_id;
    const ap_command_t *command; /* decoded (either key case) */
    aps_slice text;              /* its JSON as received */
    int websocket;               /* 1: in band on a WebSocket; 0: POST /commands */
} ap_server_command;

/*
 * Answers `c` by making `response` a CommandResponse (ap_response_success)
 * or an ErrorResponse (ap_response_error). Strings of the response may
 * borrow from `arena`, which lives until the response is written. Runs on
 * the service thread: start long work elsewhere. A status other than
 * APS_OK answers `unknown_error` with the status's name.
 */
typedef aps_status (*ap_server_command_fn)(void *user, ap_server *srv, const ap_server_command *c,
                                           ap_message_t *response, aps_arena *arena);

/*
 * Opens the replay log of thread `thread_id` in *out: how replicas share
 * their threads (a store of aps/replay_redis.h, so that any replica answers
 * every subscription and resume of any thread). A log that is not an
 * in-memory store is one connection, so the server opens three per
 * thread: one to publish (under the thread's lock), one for the service
 * thread's reads, and one for a watcher thread that blocks in
 * aps_replay_store_wait and wakes the loop when any replica appends. Runs
 * on the thread that first names the thread (a publish, or the service
 * thread for a request). Returning an in-memory store is allowed (one is
 * then opened per thread).
 */
typedef aps_status (*ap_server_open_log_fn)(void *user, aps_slice thread_id, aps_replay_store **out,
                                            aps_error *err);

/*
 * The answer to a GET of an extra route (ap_server_route_fn). `status` 0
 * leaves the route unanswered: 404. `body` is malloc'd and taken by the
 * server (NULL with `len` 0: an empty body); `content_type` is static.
 */
typedef struct ap_server_reply {
    unsigned status;
    const char *content_type;
    char *body;
    size_t len;
    /* the REST hook's (opt.api) answers that are not a body at once: */
    struct ap_server_feed *feed; /* with `status` 200: an SSE stream of this feed's records from
                                    `feed_from` on whose tag has no bit outside `feed_mask` (a tag 0
                                    goes to every stream; a mask 0 is every bit), ended when the feed
                                    is closed; taken (a reference the server drops) */
    uint64_t feed_from;
    uint32_t feed_mask;
    int feed_wait;               /* with `feed`: no stream; the hook is asked again, with `token`,
                                    once the feed is closed (a long poll: runs/wait, join) */
    char token[96];
    char content_location[320];  /* a Content-Location header ("": none): the run a stream is of,
                                    which the reference client reads (and CORS exposes) */
} ap_server_reply;

/*
 * An append-only list of SSE records (`event:`, `data:`, `id:` its index)
 * shared by the product's threads and the service thread: a run's classic
 * stream, watched by any number of requests, each from its own point.
 * Reference counted; every call is thread-safe.
 */
typedef struct ap_server_feed ap_server_feed;

/* A new open feed of server `srv` (one reference; NULL: a server that wakes nothing), NULL out of memory. */
ap_server_feed *ap_server_feed_new(ap_server *srv);

/* Takes one more reference. */
void ap_server_feed_ref(ap_server_feed *f);

/* Drops one reference (NULL-safe); the last frees the feed. */
void ap_server_feed_unref(ap_server_feed *f);

/*
 * Appends the record `event` / `json` (`len` bytes, one line of JSON)
 * with tag `tag` (bits: a stream takes it when its mask has them all) and wakes the streams
 * that wait for it. Returns APS_OK; APS_E_ARGUMENT (a closed feed, or an
 * event name of a line feed); APS_E_NOMEM.
 */
APS_NODISCARD aps_status ap_server_feed_append(ap_server_feed *f, const char *event, const char *json, size_t len,
                                               uint32_t tag);

/*
 * Closes the feed: its streams end once they have sent every record, its
 * long polls are answered. Closing a closed feed does nothing, and touches
 * no server: close every feed before ap_server_stop to keep one past it.
 */
void ap_server_feed_close(ap_server_feed *f);

/* Whether the feed is closed; its record count in *count (NULL: not told). */
int ap_server_feed_closed(ap_server_feed *f, uint64_t *count);

/* The method of a request of the REST hook. */
typedef enum ap_server_method {
    AP_SERVER_OTHER = 0,
    AP_SERVER_GET,
    AP_SERVER_POST,
    AP_SERVER_PUT,
    AP_SERVER_PATCH,
    AP_SERVER_DELETE,
    AP_SERVER_HEAD
} ap_server_method;

/* A request of the REST hook (ap_server_api_fn); everything borrowed for the call. */
typedef struct ap_server_request {
    ap_server_method method;
    const char *method_name;   /* "GET" ... */
    const char *path;          /* as libwebsockets decoded it, without the query string */
    const char *query;         /* the query string's arguments joined by '&' ("" without) */
    const char *body;          /* NUL-terminated; "" without one */
    size_t body_len;
    const char *last_event_id; /* the Last-Event-ID header ("" without) */
    const char *token;         /* NULL; a long poll's token once its feed closed */
} ap_server_request;

/*
 * Answers a REST request into `reply` (a body, a stream of a feed, or a
 * long poll on one). Runs on the service thread: it must not block. A
 * reply with status 0 is answered 404.
 */
typedef void (*ap_server_api_fn)(void *user, ap_server *srv, const ap_server_request *req, ap_server_reply *reply);

/*
 * Answers a GET of `path` (percent-decoded by libwebsockets, without the
 * query string) into `reply`. Runs on the service thread: it must not
 * block.
 */
typedef void (*ap_server_route_fn)(void *user, ap_server *srv, const char *path, ap_server_reply *reply);

/*
 * An extra read-only route of the embedder's (`apstream serve`'s /inspect):
 * GET only (any other method: 405), no CORS (same-origin pages), answered
 * with `cache-control: no-store` and `x-content-type-options: nosniff`. A
 * `path` ending in '/' matches every path under it; otherwise the path
 * itself. With an API key, a route is answered only to requests that carry
 * it (401 otherwise) unless it is `open`: for a page that holds no data and
 * asks for it with the key (a browser's navigation cannot send a header).
 */
typedef struct ap_server_route {
    const char *path;
    int open;
    ap_server_route_fn fn;
} ap_server_route;

/* One log line (no line feed): a connection, a command, a refusal, a disconnect and why. */
typedef void (*ap_server_log_fn)(void *user, const char *line);

/* Defaults used when an option is 0. */
#define AP_SERVER_DEFAULT_MAX_BODY ((size_t)1 << 20)
#define AP_SERVER_DEFAULT_MAX_CONNECTIONS 12000u
#define AP_SERVER_DEFAULT_MAX_SUBSCRIPTIONS 64u
#define AP_SERVER_DEFAULT_MAX_THREADS 1024u
#define AP_SERVER_DEFAULT_HEARTBEAT_MS 15000u
#define AP_SERVER_DEFAULT_TIMEOUT_S 10u

/*
 * How a server runs. All zero: 127.0.0.1 on a free port, no API key, no
 * CORS, the limits above, snake_case, each thread's log sized by the
 * defaults of aps/replay.h, every command answered `unknown_command`,
 * logging to standard error.
 */
typedef struct ap_server_options {
    const char *host;             /* address to listen on; NULL: 127.0.0.1 */
    unsigned port;                /* 0: a free port (ap_server_port tells which) */
    const char *api_key;          /* required as `x-api-key` or `Authorization: Bearer`; NULL: none */
    const char *cors_origins;     /* comma-separated origins allowed, "*" any; NULL: no CORS */
    size_t max_body;              /* largest request body (413 beyond) */
    size_t max_connections;       /* open connections (503 beyond) */
    size_t max_subscriptions;     /* per WebSocket */
    size_t max_threads;           /* threads known at once */
    size_t max_lag;               /* events a subscriber may fall behind its thread before it is
                                     disconnected (0: the thread log's capacity) */
    unsigned heartbeat_ms;        /* an SSE comment when a stream was quiet this long */
    unsigned timeout_s;           /* for a request's headers and body to arrive */
    aps_key_case key_case;        /* events and responses: APS_CASE_EITHER (0) means snake_case */
    aps_replay_options replay;    /* each thread's log in memory (aps/replay.h) */
    ap_server_open_log_fn open_log; /* NULL: each thread's log in memory, sized by `replay` */
    ap_server_command_fn on_command;
    const ap_server_route *routes; /* extra GET routes, tried in order before the thread routes */
    size_t nroutes;
    ap_server_api_fn api;         /* NULL: no REST API; else every request but the thread stream and
                                     commands routes and `routes` (docs/rest.md) */
    void *user;                   /* for on_command, open_log, log, the routes and api */
    ap_server_log_fn log;         /* NULL: standard error */
    uint64_t drop_after;          /* test knob: an event stream is closed once it has sent this many
                                     events past the furthest any earlier stream of its thread got
                                     (0: never): a reconnecting client's replay does not count */
} ap_server_options;

/*
 * Starts listening and serving on a thread of its own. Returns APS_OK;
 * APS_E_ARGUMENT (out or opt NULL); APS_E_IO (the address cannot be
 * listened on: err says why); APS_E_NOMEM. `err` may be NULL.
 */
APS_NODISCARD aps_status ap_server_start(ap_server **out, const ap_server_options *opt, aps_error *err);

/* The port the server listens on. */
unsigned ap_server_port(const ap_server *srv);

/*
 * Publishes an event on thread `thread_id` (made on first use): the log
 * assigns its `seq` (shared by every replica appending to a shared log),
 * which is also its `eventId` when it has none (the seq in decimal); its
 * `timestamp` is stamped when 0 (now, in ms). Keeps it in the thread's log
 * and wakes the subscribers it matches. `msg` gets the seq; *seq (NULL: not
 * stored) too. Returns APS_OK; APS_E_ARGUMENT (not an event); APS_E_LIMIT
 * (too many threads, or the event exceeds the log); APS_E_IO (a shared log
 * that cannot be reached: err says why); the encoder's status. From any
 * thread; one thread's events are numbered in the order their publish
 * calls take its lock.
 */
APS_NODISCARD aps_status ap_server_publish(ap_server *srv, aps_slice thread_id, ap_message_t *msg,
                                           uint64_t *seq, aps_error *err);

/*
 * Publishes an event given as JSON text (`len` bytes), whatever the schema
 * says of it (a capture replayed as it was recorded): it must be a JSON
 * object with a string `method` and a `params.namespace` of strings. Its
 * `seq` (as ap_server_publish assigns it), `eventId` (the seq in decimal)
 * and `params.timestamp` (now) are written afresh, and `runId` when `run_id.ptr` is not NULL; every other
 * member stays as written, in its own spelling. Returns APS_OK;
 * APS_E_SYNTAX (not such an object); the statuses of ap_server_publish.
 */
APS_NODISCARD aps_status ap_server_publish_json(ap_server *srv, aps_slice thread_id, const char *json, size_t len,
                                                aps_slice run_id, uint64_t *seq, aps_error *err);

/*
 * Copies the `data` of thread `thread_id`'s latest root `values` event (its
 * JSON) into a malloc'd buffer at *json (*len bytes; free it). Returns
 * APS_OK, or APS_E_NOT_FOUND (no such thread, or no root values yet).
 */
APS_NODISCARD aps_status ap_server_state(ap_server *srv, aps_slice thread_id, char **json, size_t *len);

/*
 * Stops gracefully: stops accepting, writes what each stream is owed up to
 * the last published event (for at most a second), closes every
 * connection, joins the service thread and frees everything. NULL-safe.
 */
void ap_server_stop(ap_server *srv);

#ifdef __cplusplus
}
#endif
#endif /* AP_SERVER_H */
