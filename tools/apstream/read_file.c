/*
 * read_file.c - apstream's input: a capture read as a stream, in chunks,
 * through the framing layer's records reader (which is also the gate that
 * fails closed), so memory stays bounded whatever its length; and a small
 * whole file (the replay request).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apstream.h"

int apstream_read_file(const char *path, char **data, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int failed = 0;
    if (f == NULL) {
        fprintf(stderr, "apstream: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        /* Room to read into, and APS_PADDING bytes that stay after the data (aps/common.h). */
        if (cap - n <= APS_PADDING) {
            size_t ncap = cap ? cap * 2 : (size_t)1 << 16;
            char *grown = realloc(buf, ncap);
            if (grown == NULL) {
                fprintf(stderr, "apstream: %s: out of memory\n", path);
                failed = 1;
                break;
            }
            buf = grown;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n - APS_PADDING, f);
        n += got;
        if (got == 0)
            break;
    }
    if (!failed && ferror(f)) {
        fprintf(stderr, "apstream: %s: read error\n", path);
        failed = 1;
    }
    if (f != stdin)
        fclose(f);
    if (failed) {
        free(buf);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

const char *apstream_input_name(const apstream_options *o)
{
    return o->file == NULL || strcmp(o->file, "-") == 0 ? "(standard input)" : o->file;
}

/* The input being read (one at a time), for print_gate: the reader's user is the caller's state. */
static const apstream_options *reading;

/* The gate's finding: "apstream: FILE:LINE: error|warning: reason" on stderr. */
static void print_gate(void *user, const aps_records_gate *g)
{
    const apstream_options *o = reading;
    (void)user;
    if (g->line != 0)
        fprintf(stderr, "apstream: %s:%" PRIu64 ": %s: %s [input]\n", apstream_input_name(o), g->line, g->severity,
                g->reason);
    else
        fprintf(stderr, "apstream: %s: %s: %s [input]\n", apstream_input_name(o), g->severity, g->reason);
    /* the page of `apstream report` shows the gate's verdict with the other findings */
    apstream_diag_collect(g->line, g->severity, "input", NULL, NULL, g->reason);
}

/* Bytes read at a time: what one read(2) of a pipe or file gives is pushed at once. */
#define CHUNK ((size_t)256 << 10)

apstream_gate apstream_read_records(const apstream_options *o, aps_record_format format, aps_record_fn on_record,
                                    aps_record_error_fn on_error, void *user)
{
    const char *name = apstream_input_name(o);
    int fd = o->file == NULL || strcmp(o->file, "-") == 0 ? 0 : open(o->file, O_RDONLY);
    aps_records_config cfg;
    aps_records_reader *r;
    char *buf;
    int rc = 0, io_failed = 0;
    apstream_gate gate;
    if (fd < 0) {
        fprintf(stderr, "apstream: %s: %s\n", name, strerror(errno));
        return APSTREAM_INPUT_ERROR;
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.format = format;
    cfg.max_record = o->max_record;
    cfg.strict = o->strict;
    cfg.on_record = on_record;
    cfg.on_error = on_error;
    cfg.on_gate = print_gate;
    cfg.user = user;
    reading = o;
    r = aps_records_reader_new(&cfg);
    /* zeroed: the APS_PADDING bytes after what was read are readable and defined */
    buf = calloc(1, CHUNK + APS_PADDING);
    if (r == NULL || buf == NULL) {
        fprintf(stderr, "apstream: %s: out of memory\n", name);
        rc = APS_RECORDS_NOMEM;
    }
    while (rc == 0) {
        ssize_t got = read(fd, buf, CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "apstream: %s: read error: %s\n", name, strerror(errno));
            io_failed = 1;
            break;
        }
        rc = got == 0 ? aps_records_finish(r) : aps_records_push(r, buf, (size_t)got);
        if (got == 0)
            break;
    }
    if (fd != 0)
        close(fd);
    if (rc == APS_RECORDS_NOMEM && r != NULL && buf != NULL)
        fprintf(stderr, "apstream: %s: out of memory\n", name);
    gate = io_failed || (rc != 0 && rc != APS_RECORDS_REJECTED) ? APSTREAM_INPUT_ERROR
           : rc == APS_RECORDS_REJECTED                         ? APSTREAM_INPUT_REJECTED
           : aps_records_reader_verdict(r) == APS_RECORDS_READ_AND_FAIL ? APSTREAM_INPUT_FAILED
                                                                        : APSTREAM_INPUT_OK;
    aps_records_reader_free(r);
    free(buf);
    return gate;
}

int apstream_check_records(const apstream_options *o, uint64_t records)
{
    if (records > 0)
        return 0;
    fprintf(stderr, "apstream: %s: error: no records: nothing was checked [input]\n", apstream_input_name(o));
    apstream_diag_collect(0, "error", "input", NULL, NULL, "no records: nothing was checked");
    return 1;
}
