/*
 * aps/records.h - a captured stream as JSON records: one per line of JSONL,
 * one per event of SSE, or the whole text when it is a single JSON document,
 * each with the line it starts on and, for SSE, the event's `event:` type and
 * `id:`. Glue over the JSONL splitter and the SSE parser for tools that
 * check or replay captures (apstream, cddlgen validate). No I/O: bytes in,
 * callbacks out.
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

/* Receives each record; returns 0 to go on, anything else to stop (returned by aps_records_split). */
typedef int (*aps_record_fn)(void *user, const aps_record *rec);
/* Receives a framing error (a line too long, an SSE event too large, bad UTF-8). */
typedef void (*aps_record_error_fn)(void *user, uint64_t line, const aps_error *err);

/*
 * The format of `data`: SSE when its first non-blank line is an SSE field
 * or comment; JSON when the whole input is one JSON text spanning several
 * lines (a pretty-printed document); JSONL otherwise.
 */
aps_record_format aps_records_detect(const char *data, size_t len);

/*
 * Splits `data` into records (APS_FORMAT_AUTO: detected), calling
 * `on_record` for each and `on_error` (may be NULL) for framing errors.
 * `max_record`: the longest line or event accepted. Allocates one buffer of
 * max_record bytes with malloc. Returns 0, -1 when out of memory, or the
 * first non-zero value `on_record` returned. Records are padded
 * (aps/common.h) when `data` has APS_PADDING readable bytes after its end:
 * JSON and JSONL records point into `data`, SSE records into the buffer,
 * which is padded.
 */
int aps_records_split(const char *data, size_t len, aps_record_format format, size_t max_record,
                      aps_record_fn on_record, aps_record_error_fn on_error, void *user);

/* What aps_records_sse_check found; both 0 when the input is well-formed SSE. */
typedef struct aps_records_sse_shape {
    uint64_t bad_line;   /* first non-blank line that is neither a data, event, id or retry field nor a comment */
    uint64_t open_line;  /* the stream ends inside an event: the line that event starts on */
} aps_records_sse_shape;

/*
 * Checks that `data` is SSE as a capture of this protocol writes it: every
 * non-blank line a known field or a comment (the SSE rules skip other
 * lines, so bytes that are not SSE at all would pass as an empty stream),
 * and the last event ended by a blank line (at the end of a stream the SSE
 * rules drop an unfinished event without a word). For tools that gate on
 * captures and must fail closed.
 */
void aps_records_sse_check(const char *data, size_t len, aps_records_sse_shape *out);

/*
 * Whether `data` can be JSONL at all, rather than JSONL with bad lines:
 * returns 0 when it can; else the line to blame, with *why saying it (a
 * one-line reason starting "not JSONL or SSE: "): the first line holding a
 * NUL byte (binary data: no JSON text holds one), or 1 when no line is a
 * JSON text. Stops at the first JSON line, so a capture
 * costs one line and one scan for NUL.
 */
uint64_t aps_records_jsonl_check(const char *data, size_t len, const char **why);

/* What a gate does with a capture. */
typedef enum aps_records_verdict {
    APS_RECORDS_READ = 0,       /* read it (a warning may come with it) */
    APS_RECORDS_READ_AND_FAIL,  /* read what it holds, then fail: a cut stream under strict */
    APS_RECORDS_REJECT          /* not in its format: do not read it, fail */
} aps_records_verdict;

/* The verdict on a capture, and what to tell its user. */
typedef struct aps_records_gate {
    aps_records_verdict verdict;
    const char *severity; /* "error" or "warning"; NULL when there is nothing to say */
    uint64_t line;        /* the line `reason` is about */
    const char *reason;   /* one line, static: "not SSE: ..." */
} aps_records_gate;

/*
 * The check a tool that gates on captures makes before reading one in
 * `format` (given or detected), so that it fails closed: JSONL must be
 * JSONL at all (aps_records_jsonl_check), SSE must have only fields and
 * comments and end its last event (aps_records_sse_check). A cut SSE stream
 * is a warning, or with `strict` an error that still lets the complete
 * events be read. Every tool prints the same reason the same way.
 */
void aps_records_gate_check(const char *data, size_t len, aps_record_format format, int strict,
                            aps_records_gate *out);

#ifdef __cplusplus
}
#endif
#endif /* APS_RECORDS_H */
