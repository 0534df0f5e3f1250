/*
 * apr_records.h - a captured stream as JSON records: one per line of JSONL,
 * one per event of SSE, or the whole text when it is a single JSON document,
 * each with the line it starts on and, for SSE, the event's `event:` type and
 * `id:`. Glue over the JSONL splitter and the SSE parser for tools that
 * check or replay captures (apstream, cddlgen validate). No I/O: bytes in,
 * callbacks out.
 */
#ifndef APR_RECORDS_H
#define APR_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "apr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum apr_record_format {
    APR_FORMAT_AUTO,   /* apr_records_detect decides */
    APR_FORMAT_JSON,   /* the whole input is one JSON text */
    APR_FORMAT_JSONL,  /* one JSON text per line */
    APR_FORMAT_SSE     /* one JSON text per SSE event's data */
} apr_record_format;

typedef struct apr_record {
    const char *text;       /* the JSON text (SSE: the event's data) */
    size_t len;
    uint64_t line;          /* 1-based line of the text (SSE: of its first data line) */
    int from_sse;
    const char *sse_type;   /* SSE `event:` ("message" when none) */
    size_t sse_type_len;
    const char *sse_id;     /* the last event id the SSE rules kept */
    size_t sse_id_len;
} apr_record;

/* Receives each record; returns 0 to go on, anything else to stop (returned by apr_records_split). */
typedef int (*apr_record_fn)(void *user, const apr_record *rec);
/* Receives a framing error (a line too long, an SSE event too large, bad UTF-8). */
typedef void (*apr_record_error_fn)(void *user, uint64_t line, const apr_error *err);

/*
 * The format of `data`: SSE when its first non-blank line is an SSE field
 * or comment; JSON when the whole input is one JSON text spanning several
 * lines (a pretty-printed document); JSONL otherwise.
 */
apr_record_format apr_records_detect(const char *data, size_t len);

/*
 * Splits `data` into records (APR_FORMAT_AUTO: detected), calling
 * `on_record` for each and `on_error` (may be NULL) for framing errors.
 * `max_record`: the longest line or event accepted. Allocates one buffer of
 * max_record bytes with malloc. Returns 0, -1 when out of memory, or the
 * first non-zero value `on_record` returned. Records are padded
 * (apr_common.h) when `data` has APR_PADDING readable bytes after its end:
 * JSON and JSONL records point into `data`, SSE records into the buffer,
 * which is padded.
 */
int apr_records_split(const char *data, size_t len, apr_record_format format, size_t max_record,
                      apr_record_fn on_record, apr_record_error_fn on_error, void *user);

#ifdef __cplusplus
}
#endif
#endif /* APR_RECORDS_H */
