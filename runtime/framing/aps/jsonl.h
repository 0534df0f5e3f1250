/*
 * aps/jsonl.h - JSON Lines framing: an incremental splitter that cuts a byte
 * stream into one JSON text per line, whatever way the bytes are chunked.
 *
 * Rules: lines end with LF; a CR right before the LF is stripped (CRLF files
 * work); a final line without LF is delivered by aps_jsonl_splitter_finish;
 * lines that are empty or hold only JSON whitespace (space, tab, CR) are
 * skipped but still counted, so line numbers match what an editor shows. The
 * splitter does not parse JSON or check UTF-8: the JSON decoder that reads
 * each line does both.
 *
 * Example:
 *
 *     static aps_status on_line(void *user, const aps_jsonl_line *line)
 *     {
 *         return decode(line->text, line->len);
 *     }
 *
 *     char storage[1 << 20];
 *     aps_jsonl_splitter s;
 *     aps_jsonl_splitter_init(&s, storage, sizeof storage, on_line, on_error, ctx);
 *     while ((n = read(fd, buf, sizeof buf)) > 0)
 *         if (aps_jsonl_splitter_push(&s, buf, n, &err) != APS_OK)
 *             break;
 *     st = aps_jsonl_splitter_finish(&s, &err);
 *
 * Thread-safety: reentrant; a splitter belongs to one thread at a time.
 * Nothing here allocates: long lines are gathered in storage given at init.
 */
#ifndef APS_JSONL_H
#define APS_JSONL_H

#include "aps/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One line. `text` (not NUL-terminated, no LF, no final CR) is valid only
 * during the callback: it points into the pushed bytes or into the storage.
 */
typedef struct aps_jsonl_line {
    const char *text;
    size_t len;
    uint64_t line_no; /* 1-based physical line number */
    uint64_t offset;  /* stream offset of the line's first byte */
} aps_jsonl_line;

/*
 * Receives each non-blank line. Returns APS_OK to go on; any other status
 * stops the splitter (see aps_jsonl_splitter_push).
 */
typedef aps_status (*aps_jsonl_line_fn)(void *user, const aps_jsonl_line *line);

/*
 * Receives a recoverable error: a line longer than the maximum, reported as
 * APS_E_LIMIT at the line's start offset with its line number in the
 * message. The line is skipped up to its LF and splitting goes on. Returns
 * APS_OK to go on; any other status stops the splitter.
 */
typedef aps_status (*aps_jsonl_error_fn)(void *user, const aps_error *err);

/* Splitter state. Treat the members as private. */
typedef struct aps_jsonl_splitter {
    char *buf;            /* the caller's storage for a line split over pushes */
    size_t cap, len;
    int cr_held;          /* a CR ended the last push and is not yet stored */
    int skipping;         /* the current line is too long: skip to its LF */
    int failed;           /* a callback stopped the splitter */
    uint64_t line_no;     /* number of the current line */
    uint64_t line_offset; /* stream offset of the current line */
    uint64_t offset;      /* stream offset of the next byte */
    aps_jsonl_line_fn on_line;
    aps_jsonl_error_fn on_error;
    void *user;
} aps_jsonl_splitter;

/*
 * Prepares a splitter for a new stream.
 * storage, cap: room for one line; a line longer than `cap` bytes (not
 *   counting its CR LF) is reported and skipped. Borrowed while the splitter
 *   is used. May be NULL when cap is 0.
 * on_line: receives lines; NULL discards them.
 * on_error: receives recoverable errors; NULL ignores them.
 * user: passed to both callbacks.
 */
void aps_jsonl_splitter_init(aps_jsonl_splitter *s, void *storage, size_t cap,
                             aps_jsonl_line_fn on_line, aps_jsonl_error_fn on_error,
                             void *user);

/* Starts a new stream with the same storage and callbacks (line 1, offset 0). */
void aps_jsonl_splitter_reset(aps_jsonl_splitter *s);

/*
 * Feeds the next `len` bytes (`bytes` may be NULL when len is 0). Complete
 * lines are delivered at once, straight from `bytes` when they lie in it
 * whole; a partial line is kept for the next push. Any chunking of the same
 * bytes gives the same callbacks.
 * Returns APS_OK; or, when a callback returned another status, that status
 * (recorded in `err`): the splitter is then stopped and every later call
 * returns APS_E_STATE.
 */
APS_NODISCARD aps_status aps_jsonl_splitter_push(aps_jsonl_splitter *s,
                                                 const void *bytes, size_t len,
                                                 aps_error *err);

/*
 * Ends the stream: delivers a final line that has no LF (unless blank).
 * Returns APS_OK, a callback's status as for push, or APS_E_STATE when
 * stopped. Call aps_jsonl_splitter_reset to read another stream.
 */
APS_NODISCARD aps_status aps_jsonl_splitter_finish(aps_jsonl_splitter *s,
                                                   aps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* APS_JSONL_H */
