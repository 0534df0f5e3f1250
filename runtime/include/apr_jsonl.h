/*
 * apr_jsonl.h - JSON Lines framing: an incremental splitter that cuts a byte
 * stream into one JSON text per line, whatever way the bytes are chunked.
 *
 * Rules: lines end with LF; a CR right before the LF is stripped (CRLF files
 * work); a final line without LF is delivered by apr_jsonl_splitter_finish;
 * lines that are empty or hold only JSON whitespace (space, tab, CR) are
 * skipped but still counted, so line numbers match what an editor shows. The
 * splitter does not parse JSON or check UTF-8: the JSON decoder that reads
 * each line does both.
 *
 * Example:
 *
 *     static apr_status on_line(void *user, const apr_jsonl_line *line)
 *     {
 *         return decode(line->text, line->len);
 *     }
 *
 *     char storage[1 << 20];
 *     apr_jsonl_splitter s;
 *     apr_jsonl_splitter_init(&s, storage, sizeof storage, on_line, on_error, ctx);
 *     while ((n = read(fd, buf, sizeof buf)) > 0)
 *         if (apr_jsonl_splitter_push(&s, buf, n, &err) != APR_OK)
 *             break;
 *     st = apr_jsonl_splitter_finish(&s, &err);
 *
 * Thread-safety: reentrant; a splitter belongs to one thread at a time.
 * Nothing here allocates: long lines are gathered in storage given at init.
 */
#ifndef APR_JSONL_H
#define APR_JSONL_H

#include "apr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One line. `text` (not NUL-terminated, no LF, no final CR) is valid only
 * during the callback: it points into the pushed bytes or into the storage.
 */
typedef struct apr_jsonl_line {
    const char *text;
    size_t len;
    uint64_t line_no; /* 1-based physical line number */
    uint64_t offset;  /* stream offset of the line's first byte */
} apr_jsonl_line;

/*
 * Receives each non-blank line. Returns APR_OK to go on; any other status
 * stops the splitter (see apr_jsonl_splitter_push).
 */
typedef apr_status (*apr_jsonl_line_fn)(void *user, const apr_jsonl_line *line);

/*
 * Receives a recoverable error: a line longer than the maximum, reported as
 * APR_E_LIMIT at the line's start offset with its line number in the
 * message. The line is skipped up to its LF and splitting goes on. Returns
 * APR_OK to go on; any other status stops the splitter.
 */
typedef apr_status (*apr_jsonl_error_fn)(void *user, const apr_error *err);

/* Splitter state. Treat the members as private. */
typedef struct apr_jsonl_splitter {
    char *buf;            /* the caller's storage for a line split over pushes */
    size_t cap, len;
    int cr_held;          /* a CR ended the last push and is not yet stored */
    int skipping;         /* the current line is too long: skip to its LF */
    int failed;           /* a callback stopped the splitter */
    uint64_t line_no;     /* number of the current line */
    uint64_t line_offset; /* stream offset of the current line */
    uint64_t offset;      /* stream offset of the next byte */
    apr_jsonl_line_fn on_line;
    apr_jsonl_error_fn on_error;
    void *user;
} apr_jsonl_splitter;

/*
 * Prepares a splitter for a new stream.
 * storage, cap: room for one line; a line longer than `cap` bytes (not
 *   counting its CR LF) is reported and skipped. Borrowed while the splitter
 *   is used. May be NULL when cap is 0.
 * on_line: receives lines; NULL discards them.
 * on_error: receives recoverable errors; NULL ignores them.
 * user: passed to both callbacks.
 */
void apr_jsonl_splitter_init(apr_jsonl_splitter *s, void *storage, size_t cap,
                             apr_jsonl_line_fn on_line, apr_jsonl_error_fn on_error,
                             void *user);

/* Starts a new stream with the same storage and callbacks (line 1, offset 0). */
void apr_jsonl_splitter_reset(apr_jsonl_splitter *s);

/*
 * Feeds the next `len` bytes (`bytes` may be NULL when len is 0). Complete
 * lines are delivered at once, straight from `bytes` when they lie in it
 * whole; a partial line is kept for the next push. Any chunking of the same
 * bytes gives the same callbacks.
 * Returns APR_OK; or, when a callback returned another status, that status
 * (recorded in `err`): the splitter is then stopped and every later call
 * returns APR_E_STATE.
 */
APR_NODISCARD apr_status apr_jsonl_splitter_push(apr_jsonl_splitter *s,
                                                 const void *bytes, size_t len,
                                                 apr_error *err);

/*
 * Ends the stream: delivers a final line that has no LF (unless blank).
 * Returns APR_OK, a callback's status as for push, or APR_E_STATE when
 * stopped. Call apr_jsonl_splitter_reset to read another stream.
 */
APR_NODISCARD apr_status apr_jsonl_splitter_finish(apr_jsonl_splitter *s,
                                                   apr_error *err);

#ifdef __cplusplus
}
#endif
#endif /* APR_JSONL_H */
