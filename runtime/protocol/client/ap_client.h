/*
 * ap_client.h - a client of an Agent Streaming Protocol thread server: the
 * C counterpart of the SDK's ThreadStream (docs/client.md). One ap_client
 * is one thread's stream, over SSE (libcurl) or WebSocket (libwebsockets):
 * it subscribes, sends commands and matches their responses by id, decodes
 * each event into the generated types (ap.h), assembles messages and tool
 * runs with the companion's assembler (each event fed once), surfaces
 * interrupts, and resumes a dropped stream without a repeat or a gap.
 *
 *     ap_client_options o = { 0 };
 *     o.url = "http://127.0.0.1:2024";
 *     o.thread_id = "t1";
 *     o.callbacks.on_message_delta = print_token;
 *     ap_client *c = ap_client_open(&o, &err);
 *     if (c == NULL || ap_client_run_start(c, "agent", "{\"messages\":[]}", &resp, &err) != APS_OK) ...
 *     while (ap_client_run_until_done(c, 0, &end, &err) == APS_OK && end == AP_CLIENT_RUN_INTERRUPTED)
 *         if (ap_client_respond(c, ap_client_interrupt_last(c), "\"yes\"", &resp, &err) != APS_OK) ...
 *     ap_client_close(c);
 *
 * (examples/chat.c is a whole program.)
 *
 * The loop is the caller's: ap_client_step does one round of I/O, waiting
 * at most a timeout; ap_client_fd gives a descriptor to poll beside others;
 * ap_client_run_until_done steps until the run's root lifecycle ends. No
 * thread is started. Callbacks run inside those calls, on the caller's
 * thread, and must not call back into the client except ap_client_cancel
 * (the calls that step return APS_E_STATE when they do).
 *
 * Memory is bounded whatever the server sends: an event, a response or a
 * WebSocket message is at most max_message bytes (more: the connection is
 * dropped and resumed, and on_error says why), eventIds are remembered in a
 * window of dedupe_window hashes, and the assembler has its limits
 * (aps_asm_options' defaults).
 *
 * Thread-safety: one thread uses a client at a time; ap_client_cancel may
 * be called from any thread while the client lives.
 */
#ifndef AP_CLIENT_H
#define AP_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "ap.h"
#include "aps/asm.h"
#include "aps/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The defaults an option of 0 stands for (ap_client_options). */
#define AP_CLIENT_DEFAULT_MAX_MESSAGE ((size_t)16 << 20)
#define AP_CLIENT_DEFAULT_DEDUPE_WINDOW 4096u
#define AP_CLIENT_DEFAULT_COMMAND_TIMEOUT_MS 30000
#define AP_CLIENT_DEFAULT_MAX_RESUMES 5u
#define AP_CLIENT_DEFAULT_RESUME_DELAY_MS 200

/* How the client talks to the server. */
typedef enum ap_client_transport {
    AP_CLIENT_SSE = 0,    /* POST .../stream/events (or .../stream) for events, POST .../commands for commands */
    AP_CLIENT_WEBSOCKET   /* one WebSocket to .../stream/events: commands in band, subscription.subscribe */
} ap_client_transport;

/* How a dropped stream is resumed (docs/client.md, "Resume"). */
typedef enum ap_client_resume {
    AP_CLIENT_RESUME_DEFAULT = 0,     /* SSE: sinceEventId; WebSocket: subscription.reconnect */
    AP_CLIENT_RESUME_SINCE_EVENT_ID,  /* SSE: `sinceEventId` in the request body */
    AP_CLIENT_RESUME_LAST_EVENT_ID,   /* SSE: the Last-Event-ID header */
    AP_CLIENT_RESUME_RECONNECT,       /* WebSocket: subscription.reconnect with the last eventId */
    AP_CLIENT_RESUME_NEVER            /* a drop is an error (on_error) and the stream stays closed */
} ap_client_resume;

/* How a run ended, as its root lifecycle event said. */
typedef enum ap_client_run_end {
    AP_CLIENT_RUN_NONE = 0,      /* not ended (a timeout, a cancel) */
    AP_CLIENT_RUN_COMPLETED,
    AP_CLIENT_RUN_FAILED,
    AP_CLIENT_RUN_INTERRUPTED    /* waiting for input.respond (ap_client_respond) */
} ap_client_run_end;

/* An interrupt the server raised (an `input.requested` event). Valid during on_interrupt, or copied by the client
 * (ap_client_interrupt_last). */
typedef struct ap_client_interrupt {
    aps_slice interrupt_id;          /* `interrupt_id` / `interruptId` */
    const aps_slice *ns;             /* its namespace, root first (NULL when ns_len is 0) */
    size_t ns_len;
    aps_json_raw payload;            /* what it asks, raw JSON (ptr NULL: none) */
    aps_json_raw json;               /* the whole event, raw JSON */
} ap_client_interrupt;

/* A response to a command. Valid until the next command, or ap_client_close. */
typedef struct ap_client_response {
    int ok;                          /* 1: a success (msg->kind AP_MESSAGE_COMMAND_RESPONSE); 0: an ErrorResponse */
    const ap_message_t *msg;         /* decoded by the schema */
    aps_slice error_code;            /* an ErrorResponse's `error` (ptr NULL otherwise) */
    aps_slice error_message;         /* its `message` */
    aps_json_raw result;             /* a success's `result`, raw JSON (ptr NULL: none) */
    const char *json;                /* the response as received, NUL-terminated */
    size_t len;
} ap_client_response;

/* What a message callback gets at message-start. Valid during the call. */
typedef struct ap_client_message_start {
    aps_slice id;
    aps_slice role;                  /* ptr NULL: none given */
    const aps_slice *ns;             /* namespace, root first */
    size_t ns_len;
    aps_slice node;                  /* ptr NULL: none */
} ap_client_message_start;

/*
 * What the client tells the application. Every member may be NULL; `user`
 * is passed to each. Pointers are valid during the call only. Each event is
 * seen once: a repeat a resume brings is dropped before any callback.
 */
typedef struct ap_client_callbacks {
    /* Every event, decoded by the schema (`ev` NULL when the schema rejected it: `json` is still given). */
    void (*on_event)(void *user, const ap_event_t *ev, const char *json, size_t len);
    /* A message started streaming. */
    void (*on_message_start)(void *user, const ap_client_message_start *m);
    /* Text was appended to block `index` of `m` (a text, reasoning, data or tool-call delta). */
    void (*on_message_delta)(void *user, const aps_asm_message *m, uint64_t index, aps_asm_delta kind,
                             aps_slice text);
    /* `m` finished, failed, or (at ap_client_close, or a run's end) was left open by the server. */
    void (*on_message_finish)(void *user, const aps_asm_message *m);
    /* A tool run finished or failed. */
    void (*on_tool)(void *user, const aps_asm_tool *t);
    /* An interrupt: answer it with ap_client_respond once the call that stepped returns. */
    void (*on_interrupt)(void *user, const ap_client_interrupt *in);
    /* The server said `lost` events are gone (`oldest`: the oldest seq it still has, 0 unknown): a miss. */
    void (*on_miss)(void *user, uint64_t lost, uint64_t oldest);
    /* Something went wrong that the client works around (a drop it resumes, an event the schema rejects) or
       cannot (then the call that stepped returns the same error). `err` has a code, an offset and a message. */
    void (*on_error)(void *user, const aps_error *err);
    /* The run's root lifecycle ended. */
    void (*on_run_end)(void *user, ap_client_run_end end);
    void *user;
} ap_client_callbacks;

/* A subscription's filter (an EventStreamRequest). All zero: every channel, every namespace, any depth. */
typedef struct ap_client_subscription {
    const char *const *channels;     /* channel names ("messages", "tools", "lifecycle", ...), NULL: all */
    size_t channels_len;
    const char *const *const *namespaces; /* namespace prefixes, each a NULL-terminated array of segments */
    size_t namespaces_len;
    int depth;                       /* namespace depth below a prefix; -1 or 0 with has_depth 0: any */
    int has_depth;
} ap_client_subscription;

/* How to open a client. All zero but url and thread_id means the defaults. */
typedef struct ap_client_options {
    const char *url;                 /* http://HOST[:PORT][/prefix] of the server (required) */
    const char *thread_id;           /* the thread: letters, digits and - . _ ~ : (required) */
    ap_client_transport transport;
    ap_client_resume resume;
    ap_client_callbacks callbacks;
    size_t max_message;              /* the largest event, response or WebSocket message (0: 16 MiB) */
    size_t dedupe_window;            /* eventIds remembered to drop repeats (0: 4096) */
    int command_timeout_ms;          /* how long ap_client_command waits (0: 30 s) */
    unsigned max_resumes;            /* resumes in a row that bring nothing before giving up (0: 5) */
    int resume_delay_ms;             /* wait before a resume (0: 200 ms; doubled each time in a row) */
    int heartbeat_timeout_ms;        /* silence that drops a stream (0: learned: twice the heartbeat the server
                                        showed while idle, plus a second; never when it showed none) */
    int strict;                      /* nonzero: the assembler's strict mode (aps_asm_options.strict) */
} ap_client_options;

/* A client. Opaque. */
typedef struct ap_client ap_client;

/*
 * Opens a client of `o->thread_id` on the server at `o->url` (both copied),
 * connecting nothing yet. Returns NULL with `err` set (may be NULL) when
 * an option is invalid (APS_E_ARGUMENT, the pointer names it), memory runs
 * out or the transport library would not start (APS_E_IO).
 */
ap_client *ap_client_open(const ap_client_options *o, aps_error *err);

/*
 * Subscribes to the thread's events with filter `sub` (NULL: every channel).
 * SSE: opens the event stream; WebSocket: opens the socket and sends
 * subscription.subscribe. Neither waits: a server may answer only once a
 * run starts; a refusal ends the stream, said through on_error and
 * returned by the next call that steps. A client has one subscription.
 * APS_OK; APS_E_STATE when already subscribed or called from a callback;
 * APS_E_NOMEM.
 */
APS_NODISCARD aps_status ap_client_subscribe(ap_client *c, const ap_client_subscription *sub, aps_error *err);

/*
 * Sends command `method` with `params` (a JSON object; NULL: {}) and steps
 * until its response comes, matched by id, or command_timeout_ms passes.
 * Events that arrive meanwhile are delivered. `out` (may be NULL) gets the
 * response, valid until the next command. APS_OK when a response came
 * (success or ErrorResponse: out->ok); APS_E_IO when it could not be sent
 * or none came in time; APS_E_STATE from a callback; APS_E_ARGUMENT for
 * params that are not a JSON object.
 */
APS_NODISCARD aps_status ap_client_command(ap_client *c, const char *method, const char *params,
                                           ap_client_response *out, aps_error *err);

/*
 * run.start for `assistant_id` with `input` (JSON; NULL: {}): a command as
 * ap_client_command. Subscribes first (every channel) when not subscribed.
 */
APS_NODISCARD aps_status ap_client_run_start(ap_client *c, const char *assistant_id, const char *input,
                                             ap_client_response *out, aps_error *err);

/*
 * input.respond to interrupt `in` (its id and namespace) with `response`
 * (JSON). A command as ap_client_command.
 */
APS_NODISCARD aps_status ap_client_respond(ap_client *c, const ap_client_interrupt *in, const char *response,
                                           ap_client_response *out, aps_error *err);

/*
 * The last interrupt seen (copied by the client; valid until the next
 * one, or close), or NULL when none came since the last ap_client_respond.
 */
const ap_client_interrupt *ap_client_interrupt_last(const ap_client *c);

/*
 * One round of I/O: waits at most `timeout_ms` (0: none) for bytes, then
 * delivers what came through the callbacks, resumes a dropped stream when
 * it is time, and drops a silent one. APS_OK; APS_E_IO when the stream is
 * lost for good (resumes exhausted, or refused); APS_E_STATE from a
 * callback; APS_E_NOMEM.
 */
APS_NODISCARD aps_status ap_client_step(ap_client *c, int timeout_ms, aps_error *err);

/*
 * A descriptor that polls readable when the client has bytes to read (an
 * epoll descriptor over its sockets, refreshed by each step). Call
 * ap_client_step(c, 0, ...) when it is, and at least every
 * ap_client_timeout_ms() so that resumes and heartbeats keep time. -1 when
 * it could not be made. Owned by the client.
 */
int ap_client_fd(ap_client *c);

/* The longest a caller polling ap_client_fd should wait before stepping anyway, in milliseconds. */
int ap_client_timeout_ms(const ap_client *c);

/*
 * Steps until the run's root lifecycle ends (completed, failed or
 * interrupted: *end says which), `timeout_ms` passes (0: no limit; *end
 * AP_CLIENT_RUN_NONE, APS_OK) or ap_client_cancel is called (APS_E_STATE,
 * "cancelled"). Each end is returned once: called again, it waits for the
 * next (after an interrupt is answered, the resumed run's; a client that
 * only watches a thread gets each run's end in turn). The run is the one
 * run.start or input.respond answered with (its run_id), or any when the
 * client started none. Other statuses as ap_client_step; APS_E_STATE when
 * the stream is idle (the run ended and the server closed it) with no end
 * left to return. `end` may be NULL.
 */
APS_NODISCARD aps_status ap_client_run_until_done(ap_client *c, int timeout_ms, ap_client_run_end *end,
                                                  aps_error *err);

/*
 * Makes the current or next wait return at once, and ap_client_run_until_done
 * (and ap_client_command) end with APS_E_STATE "cancelled", from then on:
 * a cancelled client is only closed. Thread-safe: the one call any thread
 * may make while another uses the client.
 */
void ap_client_cancel(ap_client *c);

/* Events delivered, repeats dropped, and misses the server announced, since open. Any may be NULL. */
void ap_client_counts(const ap_client *c, uint64_t *events, uint64_t *repeats, uint64_t *missed);

/*
 * Closes every connection, delivers the messages and tool runs still open
 * (on_message_finish, on_tool; state open), and frees the client. NULL-safe.
 */
void ap_client_close(ap_client *c);

#ifdef __cplusplus
}
#endif

#endif /* AP_CLIENT_H */
