/*
 * aps/records.h - a captured stream as JSON records: one per line of JSONL,
 * one per event of SSE, or the whole text when it is a single JSON document,
 * each with the line it starts on and, for SSE, the event's `event:` type and
 * `id:`. Glue over the JSONL splitter and the SSE parser for tools that
 * check or replay captures (apstream, cddlgen validate), with the checks
 * that make them fail closed. No I/O: bytes in (pushed in chunks), callbacks
 * out.
 */
#ifndef APS_RECORDS_H
#define APS_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "aps/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aps_record_format {
    APS_FORMAT_AUTO,   /* aps_records_detect decides */
    APS_FORMAT_JSON,   /* the whole input is one JSON text */
    APS_FORMAT_JSONL,  /* one JSON text per line */
    APS_FORMAT_SSE     /* one JSON text per SSE event's data */
} aps_record_format;

typedef struct aps_record {
    const char *text;       /* the JSON text (SSE: the event's data) */
    size_t len;
    uint64_t line;          /* 1-based line of the text (SSE: of its first data line) */
    int from_sse;
    const char *sse_type;   /* SSE `event:` ("message" when none) */
    size_t sse_type_len;
    const char *sse_id;     /* the last event id the SSE rules kept */
    size_t sse_id_len;
} aps_record;

/* Receives each record; returns 0 to go on, anything else to stop (returned by push and finish). */
typedef int (*aps_record_fn)(void *user, const aps_record *rec);
/*
 * Receives an SSE comment line: `text` follows its colon (the first
 * APS_SSE_NAME_MAX bytes, not checked for UTF-8), `line` is its 1-based
 * line. In stream order with the records. Returns 0 to go on, anything else
 * to stop (returned by push and finish).
 */
typedef int (*aps_record_comment_fn)(void *user, uint64_t line, const char *text, size_t len);
/* Receives a framing error (a line too long, an SSE event too large, bad UTF-8). */
typedef void (*aps_record_error_fn)(void *user, uint64_t line, const aps_error *err);

/*
 * The format of a whole input `data`: SSE when its first non-blank line is
 * an SSE field or comment; JSON when the whole input is one JSON text
 * spanning several lines (a pretty-printed document); JSONL otherwise.
 */
aps_record_format aps_records_detect(const char *data, size_t len);

/* What a gate does with a capture. */
typedef enum aps_records_verdict {
    APS_RECORDS_READ = 0,       /* read it (a warning may come with it) */
    APS_RECORDS_READ_AND_FAIL,  /* read what it holds, then fail: a cut stream under strict */
    APS_RECORDS_REJECT          /* not in its format: stop reading, fail */
} aps_records_verdict;

/* The verdict on a capture, and what to tell its user. */
typedef struct aps_records_gate {
    aps_records_verdict verdict;
    const char *severity; /* "error" or "warning"; NULL when there is nothing to say */
    uint64_t line;        /* the line `reason` is about; 0: the input as a whole */
    const char *reason;   /* one line, static: "not SSE: ..." */
} aps_records_gate;

/* Receives the gate's finding, once, when there is one (severity not NULL). */
typedef void (*aps_records_gate_fn)(void *user, const aps_records_gate *gate);

/*
 * How a reader is set up. `max_record`: the longest JSONL line, SSE event
 * data or JSON document accepted (longer ones are framing errors and are
 * skipped). `strict`: a stream that ends inside an SSE event is an error
 * (APS_RECORDS_READ_AND_FAIL) instead of a warning.
 */
typedef struct aps_records_config {
    aps_record_format format;  /* APS_FORMAT_AUTO: detected from the head of the stream */
    size_t max_record;
    int strict;
    aps_record_fn on_record;
    aps_record_error_fn on_error;  /* may be NULL */
    aps_records_gate_fn on_gate;   /* may be NULL */
    aps_record_comment_fn on_comment; /* may be NULL: SSE comments are skipped */
    void *user;
} aps_records_config;

/*
 * A capture read as a stream: bytes pushed in chunks of any size, records
 * out through callbacks, in bounded memory (about 2 * max_record at most,
 * whatever the length of the stream), so that a tool reading standard input
 * holds one record at a time, never the capture.
 *
 * The reader is also a gate that fails closed (tools that check captures
 * must not pass bytes they did not understand):
 *   - format detection (APS_FORMAT_AUTO) looks at the head of the stream:
 *     SSE when the first non-blank line is an SSE field or comment; JSONL
 *     when the first line is a JSON text by itself; otherwise it waits for
 *     the end of the stream and decides as aps_records_detect (JSON: one
 *     document over several lines), or, past max_record bytes, decides on
 *     the first max_record bytes alone (JSONL unless they start SSE), so
 *     the format never depends on how the stream was chunked;
 *   - JSONL: a line holding a NUL byte rejects the stream there (binary
 *     data: no JSON text holds one); the lines before the first line that is
 *     a JSON text are held back (at most 1 MiB of them) and delivered only
 *     once one is seen, so bytes that hold no JSON text at all are rejected
 *     without a record;
 *   - SSE: every non-blank line must be a data, event, id or retry field or a
 *     comment (the event-stream rules skip other lines, so anything would
 *     pass as an empty stream): another line rejects the stream there; a
 *     stream that ends inside an event (the rules drop it silently) is a
 *     warning, or an error with `strict`.
 * Records before a rejected line have been delivered already: a tool fails
 * (exit 1) on a rejection whatever it printed before.
 *
 * Records are padded (aps/common.h) when every pushed buffer has
 * APS_PADDING readable bytes after its end: records lie in the pushed bytes
 * or in the reader's own padded buffers.
 */
typedef struct aps_records_reader aps_records_reader;

/* push and finish return these, or the first non-zero value on_record returned. */
#define APS_RECORDS_NOMEM (-1)     /* out of memory */
#define APS_RECORDS_REJECTED (-2)  /* the gate rejected the stream (on_gate was told) */

/* A new reader (malloc), or NULL when out of memory. */
aps_records_reader *aps_records_reader_new(const aps_records_config *config);

/*
 * Feeds the next `len` bytes. Returns 0 to go on; otherwise the reader has
 * stopped, and every later push or finish returns the same value.
 */
int aps_records_push(aps_records_reader *r, const void *bytes, size_t len);

/* Ends the stream: delivers what was waiting, tells a cut SSE stream. As push. */
int aps_records_finish(aps_records_reader *r);

/* The format read (APS_FORMAT_AUTO while it is not decided yet). */
aps_record_format aps_records_reader_format(const aps_records_reader *r);

/* The gate's verdict so far. */
aps_records_verdict aps_records_reader_verdict(const aps_records_reader *r);

/* Frees `r` (NULL-safe). */
void aps_records_reader_free(aps_records_reader *r);

#ifdef __cplusplus
}
#endif
#endif /* APS_RECORDS_H */
