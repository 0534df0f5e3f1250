/*
 * client_io.h - the client's transports: bytes to and from a thread server,
 * judged by nobody. HTTP (an SSE body, a POSTed command) on libcurl's multi
 * interface; WebSocket on libwebsockets' client side (Debian's libcurl has
 * no WebSocket). One apc_io holds the connections of one client and moves
 * them in apc_io_pump; what arrives goes to each connection's handler.
 *
 * Two users: the session of ap_client.c, and `apstream connect`
 * (tools/apstream/connect_sse.c, connect_ws.c), whose checks stay in the
 * tool. So nothing here decides what a status or a close means: it says
 * what happened (apc_done) and the handler decides. Not installed.
 *
 * Memory: an SSE body is handed on as it arrives; a POST's response and a
 * WebSocket message are held up to max_message bytes (more ends the
 * connection with APC_END_TOO_LARGE); a WebSocket's outgoing queue holds
 * APC_WS_QUEUE texts.
 *
 * Thread-safety: one thread drives an apc_io (every call but apc_io_wake,
 * which any thread may call while it lives).
 */
#ifndef AP_CLIENT_IO_H
#define AP_CLIENT_IO_H

#include <stddef.h>
#include <stdint.h>

#include "aps/common.h"

/* Texts a WebSocket holds for sending at once. */
#define APC_WS_QUEUE 16
/* Bytes of an error page kept for the message that quotes it. */
#define APC_ERROR_PAGE_KEPT 160

typedef struct apc_io apc_io;
typedef struct apc_conn apc_conn;

/* How a connection ended. */
typedef enum apc_end {
    APC_END_CLOSED = 0,   /* the server ended the body (a POST: its whole response is in body) or closed the socket */
    APC_END_STOPPED,      /* the handler's on_data asked to stop */
    APC_END_UNREACHABLE,  /* nothing answered: no connection could be made (why) */
    APC_END_STATUS,       /* an SSE body or a WebSocket upgrade answered an HTTP status other than 200/101 */
    APC_END_TOO_LARGE,    /* a response or a WebSocket message over max_message */
    APC_END_BINARY,       /* a binary WebSocket message: the protocol sends JSON text */
    APC_END_FAILED,       /* the connection failed once made (why) */
    APC_END_GONE          /* WebSocket: the socket went away with no other word from libwebsockets */
} apc_end;

/* What a connection ended with, valid during on_done. */
typedef struct apc_done {
    apc_end end;
    long status;          /* the HTTP status (0: none known) */
    const char *body;     /* POST: the response body, APS_PADDING zero bytes after it (NULL: empty);
                             an SSE body of another status than 200: the start of its page, printable,
                             NUL-terminated (NULL: empty) */
    size_t len;
    const char *why;      /* HTTP: libcurl's words for how the transfer ended (NULL: it ended well);
                             WebSocket UNREACHABLE, FAILED: libwebsockets' (NULL: it gave none) */
    int established;      /* WebSocket: the upgrade had succeeded */
} apc_done;

/*
 * What a connection tells its owner. on_data: SSE body bytes as they come
 * (only from a 200), or one whole WebSocket text message (APS_PADDING zero
 * bytes after it); returns 0 to go on, anything else to end the connection
 * (on_done then gets APC_END_STOPPED). on_done: the connection is over,
 * exactly once, unless apc_conn_close came first; the connection is freed
 * after it returns. Both may open, send on and close connections.
 */
typedef struct apc_handler {
    int (*on_data)(void *user, const char *bytes, size_t len);
    void (*on_done)(void *user, const apc_done *done);
    void *user;
} apc_handler;

/*
 * A transport for the threads under `base` (http://HOST[:PORT][/prefix], no
 * trailing slash; copied): `websocket` nonzero for WebSocket, else HTTP.
 * NULL: out of memory, a URL the transport cannot use (why in err), or
 * libcurl / libwebsockets would not start.
 */
APS_INTERNAL apc_io *apc_io_new(const char *base, int websocket, size_t max_message, aps_error *err);
/* Frees every connection (no callbacks) and the transport. NULL-safe. */
APS_INTERNAL void apc_io_free(apc_io *io);

/*
 * POSTs `body` to base/threads/THREAD/PATH (`thread` escaped as a path
 * segment) with `headers` (NULL-terminated "name: value" strings, may be
 * NULL) added to content-type: application/json. `sse` nonzero: the response
 * is a stream (on_data gets its body), else a bounded response (on_done
 * gets it). NULL: out of memory.
 */
APS_INTERNAL apc_conn *apc_http_post(apc_io *io, const char *thread, const char *path, const char *body,
                                     size_t len, const char *const *headers, int sse, const apc_handler *h);
/*
 * Opens a WebSocket to base/threads/THREAD/PATH (`thread` as it is: the
 * caller keeps it to unreserved characters). NULL: out of memory, or
 * (*refused set, may be NULL) libwebsockets refused at once.
 */
APS_INTERNAL apc_conn *apc_ws_open(apc_io *io, const char *thread, const char *path, const apc_handler *h,
                                   int *refused);
/* Queues a text message on WebSocket `c` (copied), sent once it is open. APS_E_LIMIT: the queue is full. */
APS_INTERNAL APS_NODISCARD aps_status apc_ws_send(apc_conn *c, const char *text, size_t len);
/* Ends `c` at once; its handler is not called again. NULL-safe. */
APS_INTERNAL void apc_conn_close(apc_conn *c);
/* When `c` last received a byte (apc_now_ms), or was opened. */
APS_INTERNAL int64_t apc_conn_last_byte_ms(const apc_conn *c);

/* One round of I/O: waits at most `ms` for something to happen, then runs the handlers. */
APS_INTERNAL void apc_io_pump(apc_io *io, int ms);
/* Ends a wait of apc_io_pump early. Thread-safe. */
APS_INTERNAL void apc_io_wake(apc_io *io);
/* The sockets of the open connections, at most `cap` into fds; returns how many there are. */
APS_INTERNAL size_t apc_io_sockets(apc_io *io, int *fds, size_t cap);

/* Monotonic milliseconds. */
APS_INTERNAL int64_t apc_now_ms(void);

#endif
