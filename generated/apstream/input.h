/*
 * input.h - apstream's view of a captured stream: one record per JSON text,
 * whether the file is JSONL or SSE, with the line it came from and, for SSE,
 * the event's `event:` type and `id:`.
 */
#ifndef APSTREAM_INPUT_H
#define APSTREAM_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "apr_common.h"

typedef enum input_format { FORMAT_AUTO, FORMAT_JSONL, FORMAT_SSE } input_format;

typedef struct input_record {
    const char *text;       /* the JSON text (SSE: the event's data) */
    size_t len;
    uint64_t line;          /* 1-based line of the text (SSE: of its first data line) */
    int from_sse;
    const char *sse_type;   /* SSE `event:` ("message" when none) */
    size_t sse_type_len;
    const char *sse_id;     /* the last event id the SSE rules kept */
    size_t sse_id_len;
} input_record;

/* Receives each record; returns 0 to go on. */
typedef int (*input_record_fn)(void *user, const input_record *rec);
/* Receives a framing error (a line too long, an SSE event too large, bad UTF-8). */
typedef void (*input_error_fn)(void *user, uint64_t line, const apr_error *err);

/* Reads the whole file ("-": stdin). Returns 0, or -1 after printing why to stderr. */
int input_read_file(const char *path, char **data, size_t *len);

/* Which format `data` is in: SSE when its first non-blank line is an SSE field or comment. */
input_format input_detect(const char *data, size_t len);

/*
 * Splits `data` into records in the given format (FORMAT_AUTO: detected),
 * calling `on_record` for each and `on_error` for framing errors. Returns 0,
 * or the first non-zero value a callback returned.
 */
int input_split(const char *data, size_t len, input_format format, size_t max_record,
                input_record_fn on_record, input_error_fn on_error, void *user);

#endif
