/* apstream.h - the commands of apstream, one file each (see main.c). */
#ifndef APSTREAM_H
#define APSTREAM_H

#include <stdint.h>
#include <stdio.h>

#include "ap.h"
#include "aps/records.h"

typedef struct apstream_options {
    const char *command;
    const char *file;
    const char *type_name;
    int strict;         /* --strict: SSE transport binding checks */
    int tolerant;       /* --tolerant: accept unknown variants, as a consuming application does */
    aps_key_case key_case;
    int case_given;
    aps_record_format format;
    uint64_t capacity, bytes;
    const char *request;
    const char *redis;  /* --redis URL: the replay log on Redis Streams */
    size_t max_record;  /* longest JSONL line or SSE event accepted */
} apstream_options;

/*
 * Reads the whole file ("-": stdin). Returns 0, or -1 after printing why.
 * APS_PADDING readable bytes follow the data, so what is decoded from it
 * is padded (aps/common.h).
 */
int apstream_read_file(const char *path, char **data, size_t *len);

/*
 * The gate before records are read, so a check fails closed: `data` in the
 * format asked for or detected (stored in *format), and for SSE, every line a
 * field and the last event finished. Prints each finding as
 * "apstream: FILE:LINE: error|warning: reason" on stderr. A stream cut inside
 * an event is a warning, an error with --strict.
 */
typedef enum apstream_gate {
    APSTREAM_INPUT_OK,       /* read it (warnings may have been printed) */
    APSTREAM_INPUT_FAILED,   /* read what it holds, then exit 1 (a cut capture under --strict) */
    APSTREAM_INPUT_REJECTED  /* not in the format: exit 1 without reading it */
} apstream_gate;
apstream_gate apstream_check_input(const apstream_options *o, const char *data, size_t len, aps_record_format *format);

/* The gate after: a file without a record is rejected (prints why, returns 1; else 0). */
int apstream_check_records(const apstream_options *o, uint64_t records);

/* The schema type named `name`, or NULL after printing the known names. */
const aps_type *apstream_find_type(const char *name);

/* Prints "LINE: error: POINTER: message" to `out` (the root pointer as "(root)"). */
void apstream_report(FILE *out, uint64_t line, const aps_error *err);

int apstream_validate(const apstream_options *o, int roundtrip);
int apstream_sse2jsonl(const apstream_options *o);
int apstream_replay(const apstream_options *o);
int apstream_assemble(const apstream_options *o);

#endif
