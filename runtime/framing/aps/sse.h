/*
 * aps/sse.h - Server-Sent Events (text/event-stream) framing: an encoder that
 * turns one event into bytes, and an incremental push parser that follows the
 * WHATWG HTML "Interpreting an event stream" rules exactly, whatever way the
 * bytes are chunked.
 *
 * Parser example:
 *
 *     static aps_status on_event(void *user, const aps_sse_event *ev)
 *     {
 *         handle(ev->type, ev->type_len, ev->data, ev->data_len);
 *         return APS_OK;
 *     }
 *
 *     char storage[1 << 20];
 *     aps_sse_parser p;
 *     aps_sse_parser_init(&p, storage, sizeof storage, NULL, on_event, NULL, ctx);
 *     while ((n = read(fd, buf, sizeof buf)) > 0)
 *         if (aps_sse_parser_push(&p, buf, n, &err) != APS_OK)
 *             break;
 *     (void)aps_sse_parser_finish(&p, &err);
 *
 * Encoder example (into a buffer):
 *
 *     aps_sse_writer w;
 *     aps_sse_writer_init_buffer(&w, out, sizeof out);
 *     if (aps_sse_write_event(&w, "7", 1, "messages", 8, json, json_len, &err) == APS_OK)
 *         send(out, aps_sse_writer_length(&w));
 *
 * Thread-safety: reentrant; a parser or writer belongs to one thread at a time.
 * Nothing here allocates: the parser works in storage the caller gives at init.
 */
#ifndef APS_SSE_H
#define APS_SSE_H

#include "aps/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Encoder                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Receives encoded bytes. Returns APS_OK to go on; any other status stops the
 * write and is returned by the aps_sse_write_* call that was running.
 */
typedef aps_status (*aps_sse_sink_fn)(void *user, const char *bytes, size_t len);

/*
 * Where encoded events go: a caller-owned buffer or a sink callback. Set up
 * with aps_sse_writer_init_buffer or aps_sse_writer_init_sink; treat the
 * members as private.
 */
typedef struct aps_sse_writer {
    char *buf;           /* buffer mode: the caller's buffer */
    size_t cap, len;     /* buffer mode: its size and the bytes used */
    aps_sse_sink_fn sink; /* sink mode: the callback (NULL in buffer mode) */
    void *user;          /* sink mode: passed to the callback */
} aps_sse_writer;

/*
 * Writes into buf[0..cap). A write that does not fit fails with APS_E_LIMIT
 * and leaves the buffer as it was, so each event is all there or absent.
 * `buf` may be NULL when `cap` is 0 (every write then reports APS_E_LIMIT).
 * The writer borrows `buf`; the caller keeps owning it.
 */
void aps_sse_writer_init_buffer(aps_sse_writer *w, char *buf, size_t cap);

/*
 * Hands the encoded bytes to `sink` (not NULL) in pieces, in order, with
 * `user` passed through. Nothing is buffered between calls.
 */
void aps_sse_writer_init_sink(aps_sse_writer *w, aps_sse_sink_fn sink, void *user);

/* Bytes written so far in buffer mode (0 in sink mode). */
size_t aps_sse_writer_length(const aps_sse_writer *w);

/* Empties the buffer of a buffer-mode writer so it can take new events. */
void aps_sse_writer_reset(aps_sse_writer *w);

/*
 * Writes one event: an `id: ` line when `id` is not NULL, an `event: ` line
 * when `event` is not NULL, one `data: ` line per line of `data` (split at
 * LF, CR and CRLF, so a receiver rebuilds `data` with its line breaks turned
 * into LF; data without line breaks, such as compact JSON, is one line), and
 * the blank line that dispatches it. Lines end with LF.
 *
 * id, event: the field values (`*_len` bytes); NULL omits the line. An empty
 *   event name is written and means "message" to the receiver.
 * data: `data_len` bytes; may be NULL when data_len is 0 (one empty data line
 *   is written, so the receiver still dispatches the event).
 * err: optional error record.
 *
 * Values are written as given: UTF-8 validity is the caller's business.
 * Returns APS_OK; APS_E_ARGUMENT when `id` or `event` contains CR, LF or NUL
 * (such a value cannot be represented); APS_E_LIMIT when a buffer-mode writer
 * lacks room (nothing written); or the status a sink returned.
 */
APS_NODISCARD aps_status aps_sse_write_event(aps_sse_writer *w,
                                             const char *id, size_t id_len,
                                             const char *event, size_t event_len,
                                             const char *data, size_t data_len,
                                             aps_error *err);

/*
 * Writes a comment line, `: text` (or `:` when len is 0), which receivers
 * ignore; servers send one as a heartbeat (`: keepalive`) to keep proxies from
 * closing an idle stream. `text` may be NULL when len is 0.
 * Returns APS_OK; APS_E_ARGUMENT when `text` contains CR or LF; APS_E_LIMIT;
 * or the status a sink returned.
 */
APS_NODISCARD aps_status aps_sse_write_comment(aps_sse_writer *w, const char *text,
                                               size_t len, aps_error *err);

/*
 * Writes `retry: N`, telling the receiver to wait N milliseconds before it
 * reconnects. It takes effect with the next blank line the receiver reads.
 * Returns APS_OK; APS_E_LIMIT; or the status a sink returned.
 */
APS_NODISCARD aps_status aps_sse_write_retry(aps_sse_writer *w, uint64_t ms,
                                             aps_error *err);

/* ------------------------------------------------------------------------ */
/* Parser                                                                   */
/* ------------------------------------------------------------------------ */

/* Longest event type and event id the parser keeps, in bytes. */
#define APS_SSE_NAME_MAX 256

/*
 * One dispatched event. Every slice is valid only during the callback: copy
 * what you keep. Slices are not NUL-terminated.
 */
typedef struct aps_sse_event {
    const char *type;    /* event type; "message" when none or empty was set */
    size_t type_len;
    const char *data;    /* the data lines joined with LF, no final LF */
    size_t data_len;
    const char *last_id; /* the last event id (kept across events; "" if none) */
    size_t last_id_len;
    int64_t retry;       /* reconnection time set by a `retry` field since the
                          * previous dispatched event, -1 when none */
    uint64_t offset;     /* stream offset of the event's first line */
    uint64_t data_offset; /* stream offset of its first data value byte: for
                           * one-line data, data[i] came from data_offset + i */
} aps_sse_event;

/*
 * Receives each dispatched event. Returns APS_OK to go on; any other status
 * stops the parser (see aps_sse_parser_push).
 */
typedef aps_status (*aps_sse_event_fn)(void *user, const aps_sse_event *ev);

/*
 * Receives a recoverable stream error: an event larger than the storage, an
 * event type or id longer than APS_SSE_NAME_MAX, or invalid UTF-8. `err`
 * holds the code (APS_E_LIMIT or APS_E_UTF8), the stream offset and a
 * message. The event concerned is dropped and parsing goes on. Returns APS_OK
 * to go on; any other status stops the parser.
 */
typedef aps_status (*aps_sse_error_fn)(void *user, const aps_error *err);

/*
 * Receives a comment line, one that starts with ':' (servers send them as
 * heartbeats, and some to say what a resume missed): `text` is what follows
 * the colon, cut to its first APS_SSE_NAME_MAX bytes, not checked for UTF-8
 * (comments are no part of an event); `offset`, the stream offset of the
 * colon. It comes in stream order with the events: after every event a
 * blank line before it dispatched. Returns APS_OK to go on; any other
 * status stops the parser (see aps_sse_parser_push).
 */
typedef aps_status (*aps_sse_comment_fn)(void *user, const char *text, size_t len, uint64_t offset);

/*
 * Parser options; all zero means the defaults.
 * skip_utf8_check: non-zero skips UTF-8 validation of dispatched events, for
 *   a caller whose next stage validates anyway (a JSON decoder does). By
 *   default an event whose type, data or last id is not valid UTF-8 is
 *   reported as APS_E_UTF8 and dropped: the spec would decode it with U+FFFD
 *   replacements, which silently changes the data; we would rather say so.
 */
typedef struct aps_sse_options {
    int skip_utf8_check;
} aps_sse_options;

/* Parser state. Treat the members as private. */
typedef struct aps_sse_parser {
    char *data;            /* the caller's storage: the data buffer */
    size_t data_cap, data_len;
    const char *borrowed;  /* the data, while it still lies in the pushed bytes */
    size_t data_lines;     /* data fields seen in this event */
    char type[APS_SSE_NAME_MAX];
    size_t type_len;
    char ids[2][APS_SSE_NAME_MAX]; /* the spec's last event ID buffer, and
                                    * the id being read */
    size_t id_len[2];
    int id_cur;            /* which of ids[] is the buffer */
    int id_nul;            /* the id being read contains NUL */
    char last_id[APS_SSE_NAME_MAX]; /* the last event ID string: the buffer
                                     * as of the last blank line */
    size_t last_id_len;
    uint64_t retry_acc;    /* the retry value being read */
    int retry_ok;          /* ... is digits only so far, and fits */
    int retry_digits;      /* ... has at least one digit */
    int64_t retry_event;   /* retry set since the previous dispatch, or -1 */
    int64_t retry;         /* current reconnection time, or -1 */
    char name[8];          /* field name being read (only short ones matter) */
    size_t name_len;
    int state;             /* where in a line we are */
    int field;             /* which field the value belongs to */
    int cr_pending;        /* the last byte seen was a CR ending a line */
    int bom_matched;       /* leading BOM bytes matched so far, -1 when done */
    int dropping;          /* the current event overflowed: skip to blank line */
    int failed;            /* a callback stopped the parser */
    uint64_t offset;       /* stream offset of the next byte */
    uint64_t event_offset, data_offset;
    int event_started;
    int data_unproven;     /* the data's UTF-8 needs the exact check at dispatch */
    int value_unproven;    /* ... the event type's or id's, at the line's end */
    aps_sse_options opts;
    aps_sse_event_fn on_event;
    aps_sse_error_fn on_error;
    aps_sse_comment_fn on_comment;
    void *user;
    size_t comment_len;
    uint64_t comment_offset;
    char comment[APS_SSE_NAME_MAX]; /* a comment split over pushes, so far (last: it is rarely touched) */
} aps_sse_parser;

/*
 * Prepares a parser for a new stream.
 * storage, cap: the data buffer; an event whose data (lines joined with LF)
 *   is longer than `cap` bytes is reported and dropped. Borrowed until the
 *   parser is no longer used. May be NULL when cap is 0.
 * opts: NULL means the defaults.
 * on_event: receives events; NULL discards them (the stream is still checked).
 * on_error: receives recoverable errors; NULL ignores them.
 * user: passed to both callbacks.
 */
void aps_sse_parser_init(aps_sse_parser *p, void *storage, size_t cap,
                         const aps_sse_options *opts, aps_sse_event_fn on_event,
                         aps_sse_error_fn on_error, void *user);

/*
 * Sets the callback that receives comment lines (NULL, the default after
 * aps_sse_parser_init: they are skipped, as the spec says). It gets the
 * parser's `user`.
 */
void aps_sse_parser_on_comment(aps_sse_parser *p, aps_sse_comment_fn on_comment);

/*
 * Starts a new stream, as an EventSource reconnection does: the partial event
 * and line are dropped, a BOM is stripped again, the stream offset restarts
 * at 0, and, as the spec says, the new stream's last event ID buffer starts
 * empty. aps_sse_parser_last_id (what a client sends as Last-Event-ID) and
 * the reconnection time are kept until the new stream changes them.
 */
void aps_sse_parser_reset(aps_sse_parser *p);

/*
 * Feeds the next `len` bytes of the stream (`bytes` may be NULL when len is
 * 0); calls on_event for each event a blank line dispatches and on_error for
 * each recoverable error. Partial lines and events are kept for the next
 * push. Any chunking of the same bytes gives the same callbacks.
 * Returns APS_OK; or, when a callback returned another status, that status
 * (recorded in `err`): the parser is then stopped and every later call
 * returns APS_E_STATE.
 */
APS_NODISCARD aps_status aps_sse_parser_push(aps_sse_parser *p, const void *bytes,
                                             size_t len, aps_error *err);

/*
 * Ends the stream: an event not yet closed by a blank line is discarded, as
 * the spec says (use aps_sse_parser_pending first to notice one). The last
 * event id and reconnection time stay readable; call aps_sse_parser_reset to
 * read another stream. Returns APS_OK, or APS_E_STATE when stopped.
 */
APS_NODISCARD aps_status aps_sse_parser_finish(aps_sse_parser *p, aps_error *err);

/* True when bytes of an unfinished line or event are held (finish drops them). */
int aps_sse_parser_pending(const aps_sse_parser *p);

/*
 * The last event ID string (not NUL-terminated; "" before any) and its
 * length in *len (len may be NULL): the id as of the last blank line, which
 * is what a reconnecting client sends as Last-Event-ID. An `id` field not yet
 * followed by a blank line does not count. Valid until the next push or
 * init.
 */
const char *aps_sse_parser_last_id(const aps_sse_parser *p, size_t *len);

/* The reconnection time in milliseconds set by the stream, or -1 if none. */
int64_t aps_sse_parser_retry(const aps_sse_parser *p);

#ifdef __cplusplus
}
#endif
#endif /* APS_SSE_H */
