/*
 * connect.h - `apstream connect`: the live conformance check of a server,
 * in four modules that share these types:
 *
 *   connect_read.c   the reading path: bytes or messages from the server to
 *                    verdicts (events through the checker of validate,
 *                    resume continuity, misses, filters, command responses).
 *                    No I/O: fuzzed (tests/fuzz/connect_read.c).
 *   connect_sse.c    HTTP: SSE subscriptions, POST /commands.
 *   connect_ws.c     WebSocket.
 *                    Both drive the thread client's transports
 *                    (runtime/protocol/client/client_io.h: libcurl,
 *                    libwebsockets' client side), which move the bytes;
 *                    what a status, a close or a silence means is said here.
 *   connect.c        the command line and the order of the checks.
 *
 * Memory is bounded whatever the server sends: an event or response is at
 * most o->max_record bytes (longer: an error, the connection dropped), the
 * checker remembers a bounded window of eventIds, and the filter comparison
 * keeps at most CX_MAX_COMPARED seqs per side.
 */
#ifndef APSTREAM_CONNECT_H
#define APSTREAM_CONNECT_H

#include <stdint.h>

#include "aps/filter.h"
#include "apstream.h"

/* Seqs kept per side for the filter comparison; past it the comparison stops (said once). */
#define CX_MAX_COMPARED ((size_t)1 << 20)
/* Commands awaiting their response at once. */
#define CX_MAX_PENDING 16
/* The longest eventId remembered for a resume (longer ones cannot be resumed by id). */
#define CX_MAX_ID 256

typedef enum cx_role {
    CX_MAIN,    /* the subscription checked like validate --strict, resumed with --resume-after */
    CX_FILTER,  /* the second subscription, with a filter: must get the matching subset of MAIN */
    CX_PROBE,   /* after the run: a resume from before the window, which must say a miss or continue */
    CX_COMMANDS /* --commands over a WebSocket: a socket for the commands probe, no subscription */
} cx_role;

/*
 * How a subscription resumes (SSE: since, Last-Event-ID, sinceEventId;
 * WebSocket: reconnect, or where the server refused that, a new
 * subscription whose replay is de-duplicated by seq).
 */
typedef enum cx_resume {
    CX_RESUME_NONE,
    CX_RESUME_SINCE,
    CX_RESUME_LAST_EVENT_ID,
    CX_RESUME_SINCE_EVENT_ID,
    CX_RESUME_RECONNECT,
    CX_RESUME_SUBSCRIBE,
    CX_RESUME_WAYS
} cx_resume;

/* How a resume is named in messages, and (short, stable) as the method of its findings' baseline keys. */
const char *cx_resume_name(cx_resume how);
const char *cx_resume_key(cx_resume how);

typedef struct cx_seqs {
    uint64_t *v;
    size_t n, cap;
    int full; /* stopped at CX_MAX_COMPARED */
} cx_seqs;

typedef struct cx_session cx_session;

/* One connection's reading state. */
typedef struct cx_stream {
    cx_session *s;
    cx_role role;
    aps_records_reader *reader; /* SSE: this connection's events */
    /* where this connection resumes; the first event must continue it, or follow an announced miss */
    cx_resume how;
    int has_after;
    uint64_t after_seq;         /* the last seq the client had */
    int miss;                   /* the server announced a miss before the first event */
    uint64_t miss_lost, miss_oldest;
    uint64_t missed;            /* every miss the server announced on this connection, summed */
    uint64_t heartbeats;        /* SSE comments other than a miss: the transport times them */
    int has_prev;
    uint64_t prev_seq;          /* this connection's last seq (probe: continuity) */
    uint64_t count;             /* events on this connection */
    uint64_t fresh;             /* CX_MAIN: events on it past what the client had (for drop_at) */
    uint64_t drop_at;           /* CX_MAIN: drop after this many events on it (0: never) */
    int stop;                   /* the client is done with it (dropped, failed, or the run ended) */
    int dropped;                /* stopped by drop_at: connect.c resumes it */
    int closed;                 /* the connection is gone, for whatever reason */
    int ended;                  /* the root lifecycle end was read on it */
    uint64_t skip_through;      /* a resume replayed from too early: events up to this seq are dropped */
    uint64_t replayed;          /* such events */
    int waiting_reconnect;      /* WebSocket: events before the reconnect's answer are the subscribe's replay */
    uint64_t ignored;           /* such events */
} cx_stream;

typedef struct cx_pending {
    uint64_t id;
    char method[40];
    cx_stream *on;              /* the WebSocket it went on; NULL: POST /commands */
    int reconnect;              /* its answer releases on->waiting_reconnect */
    int probe;                  /* --commands: an ErrorResponse is an answer (unless unknown_command), a
                                   success's result must be the method's result type */
    int no_id;                  /* sent without an id: the answer is an ErrorResponse with a null id */
} cx_pending;

struct cx_session {
    const apstream_options *o;
    FILE *out;
    apstream_check *check;      /* the main subscription's events, numbered 1, 2, ... across resumes */
    /* each event of the main subscription, numbered, before it is checked (NULL: none): --report's
       page, so that the reading path itself needs no page */
    void (*on_event)(void *user, const aps_record *rec);
    void *on_event_user;
    uint64_t events;
    uint64_t errors;            /* connect's own findings: each one fails the run */
    int io_error;               /* the server could not be reached at all: exit 2 */
    int no_endpoint;            /* it answered, but without the protocol's routes (said once) */
    const char *url;            /* the server's, for messages */
    int unfiltered;             /* every channel: a gap in seq is a loss */
    aps_filter filter;          /* the filtered subscription's, to compute what it must get */
    int has_filter;
    aps_filter main_filter;     /* --channels: what the main subscription takes; the filtered one is
                                   compared on those events only (the others cannot be predicted) */
    int has_main_filter;
    cx_seqs expect, got;
    int have_last;
    uint64_t last_seq;
    char last_id[CX_MAX_ID];
    size_t last_id_len;         /* 0: the last event had no usable eventId */
    int have_first;
    uint64_t first_seq;
    char first_id[CX_MAX_ID];
    size_t first_id_len;
    char run_id[CX_MAX_ID];     /* the last runId seen (subscription.reconnect names it) */
    size_t run_id_len;
    int ended;                  /* the root lifecycle of the main subscription ended */
    int main_incomplete;        /* it lost events on a resume: the filtered one cannot be compared */
    int websocket;
    int refused[CX_RESUME_WAYS]; /* ways of resuming the server refused (said once): not tried again */
    int replays[CX_RESUME_WAYS]; /* ways it answered from too early (said once): others are preferred */
    int stall_said;              /* --stall: said once, whichever subscription stalled first */
    int heartbeat_said;          /* a missed heartbeat: said once, the same way */
    /* events on the filtered subscription that its filter excludes, and repeats there: over a
       WebSocket with nothing on the main one, the server routes a thread's events to one socket */
    uint64_t misrouted, misrouted_first, filter_repeats, filter_repeat_seq;
    int routing_said;
    cx_pending pending[CX_MAX_PENDING];
    size_t npending;
    uint64_t next_id;           /* ids of the commands connect makes itself */
    uint64_t probe_answered, probe_refused; /* --commands: answers, and ErrorResponses among them */
    int has_start, start_refused; /* the --start command (start_id) was refused: there is no run to read */
    uint64_t start_id;
    aps_arena arena;
};

/* Sets up `s` (zeroed first): the checker on o, numbering events from 1. -1: out of memory. */
int cx_session_init(cx_session *s, const apstream_options *o, FILE *out);
/*
 * Compiles an EventStreamRequest (JSON): the filtered subscription's into
 * s->filter, or (`main`) the main subscription's, when it is not every
 * channel, into s->main_filter. -1 after reporting why.
 */
int cx_session_set_filter(cx_session *s, const char *json, size_t len, int main);
/* Reports what is left (commands unanswered, the filter comparison); returns the checker's findings. */
uint64_t cx_session_finish(cx_session *s, int deliver);
void cx_session_deinit(cx_session *s);

/*
 * A finding of connect's own (`line`: the event it is about, 0: none) by
 * its rule id and the method it is about (NULL: none), counted as an
 * error unless the baseline accepts it.
 */
void cx_error(cx_session *s, uint64_t line, const char *rule, const char *method, const char *pointer,
              const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* A note on stderr: what was not checked and why (a check that depends on one that failed). No finding. */
void cx_note(cx_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Sets up a stream of `role` (SSE: with its records reader). -1: out of memory. */
int cx_stream_init(cx_stream *st, cx_session *s, cx_role role, int sse);
void cx_stream_deinit(cx_stream *st);

/* SSE bytes as they arrive. 0: go on; 1: the client is done with it (st->stop); -1: broken beyond reading. */
int cx_sse_push(cx_stream *st, const char *bytes, size_t len);
/* The server ended the SSE body: a cut event, or the end before the run's, is an error. */
void cx_sse_end(cx_stream *st);
/* One WebSocket text message (an event or a response). As cx_sse_push. */
int cx_ws_message(cx_stream *st, const char *text, size_t len);

/* Remembers a command sent (CX_MAX_PENDING at most: -1 beyond). */
int cx_pending_add(cx_session *s, uint64_t id, const char *method, cx_stream *on, int reconnect);
/* Marks pending command `id` as the commands probe's (`no_id`: sent without an id). */
void cx_pending_probe(cx_session *s, uint64_t id, int no_id);
/* Forgets the commands in band on `on`, whose socket the client closed: their answers cannot come. */
void cx_pending_abandon(cx_session *s, const cx_stream *on);
/* The method of pending command `id` into buf ("" when none is pending). */
void cx_pending_method(const cx_session *s, uint64_t id, char *buf, size_t cap);
/* The server answered HTTP `status` (404) where the protocol has a route: one finding, however many ask. */
void cx_no_endpoint(cx_session *s, const char *what, long status);
/* Forgets command `id`, whose failure the transport has said (no answer can be checked). */
void cx_pending_forget(cx_session *s, uint64_t id);
/*
 * Checks a command response: a CommandResponse or ErrorResponse by the
 * schema, whose id is a pending command's (`expect`: that id, or -1: any
 * in flight), and takes the command off the list into *which (zeroed when
 * none). `missed` (may be NULL) gets a reconnect result's missedEvents (0
 * without). Returns 0, or -1 after reporting what is wrong.
 */
int cx_response(cx_session *s, const char *text, size_t len, int64_t expect, cx_pending *which, uint64_t *missed);

/* The `id` of a command's JSON (a Command by the schema). -1 after reporting why. */
int cx_command_id(const char *text, size_t len, uint64_t *id, char *method, size_t method_cap);

/* The two transports, behind one interface (connect.c drives it). */
typedef struct cx_transport cx_transport;
typedef struct cx_transport_ops {
    /* Opens a subscription on `st` with EventStreamRequest `request` (JSON), resuming as st->how says. */
    int (*open)(cx_transport *t, cx_stream *st, const char *request);
    /* Sends a command (its JSON; its id pending): POST /commands, or in band on `on`. */
    int (*command)(cx_transport *t, cx_stream *on, const char *text, size_t len, uint64_t id);
    /* One round of I/O, waiting at most `ms`. */
    void (*pump)(cx_transport *t, int ms);
    /* Drops the connection of `st` (st->closed afterwards). */
    void (*close)(cx_transport *t, cx_stream *st);
    void (*free)(cx_transport *t);
} cx_transport_ops;

struct cx_transport {
    const cx_transport_ops *ops;
    cx_session *s;
    const char *base;    /* http://HOST:PORT[/prefix], no trailing slash */
    const char *thread;
    unsigned stall_s;    /* a connection with no byte for this long is dropped as stalled */
};

/* The transports (NULL: out of memory, or not built in). */
cx_transport *cx_sse_transport(cx_session *s, const char *base, const char *thread, unsigned stall_s);
cx_transport *cx_ws_transport(cx_session *s, const char *base, const char *thread, unsigned stall_s);

/* What `w` wrote, as a NUL-terminated heap string the caller frees (NULL: the writer
 * failed or out of memory); `w` is deinitialised either way. */
char *cx_json_take(aps_json_writer *w);

/* Monotonic milliseconds. */
int64_t cx_now_ms(void);

#endif
