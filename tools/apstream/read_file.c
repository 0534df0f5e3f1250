/*
 * read_file.c - apstream's input: a whole file, or standard input for "-",
 * and the checks that it is a capture at all (apstream_check_input).
 */
#include <errno.h>
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

static const char *input_name(const apstream_options *o)
{
    return strcmp(o->file, "-") == 0 ? "(standard input)" : o->file;
}

apstream_gate apstream_check_input(const apstream_options *o, const char *data, size_t len, aps_record_format *format)
{
    aps_records_sse_shape shape;
    const char *why;
    uint64_t line;
    *format = o->format != APS_FORMAT_AUTO ? o->format : aps_records_detect(data, len);
    if (*format == APS_FORMAT_JSONL && (line = aps_records_jsonl_check(data, len, &why)) != 0) {
        /* bytes that are not a capture with bad lines: say so once */
        fprintf(stderr, "apstream: %s:%" PRIu64 ": error: not JSONL or SSE: %s\n", input_name(o), line, why);
        return APSTREAM_INPUT_REJECTED;
    }
    if (*format != APS_FORMAT_SSE)
        return APSTREAM_INPUT_OK; /* a JSON text that is not JSON is reported as an invalid record */
    aps_records_sse_check(data, len, &shape);
    if (shape.bad_line != 0) {
        /* the SSE rules skip lines they do not know: without this, anything would pass as an empty stream */
        fprintf(stderr, "apstream: %s:%" PRIu64 ": error: not SSE: the line is not a data, event, id or retry field or a comment\n",
                input_name(o), shape.bad_line);
        return APSTREAM_INPUT_REJECTED;
    }
    if (shape.open_line != 0) {
        /* the SSE rules drop an unfinished event silently: a capture cut short */
        fprintf(stderr, "apstream: %s:%" PRIu64 ": %s: the stream ends inside the event that starts here\n",
                input_name(o), shape.open_line, o->strict ? "error" : "warning");
        return o->strict ? APSTREAM_INPUT_FAILED : APSTREAM_INPUT_OK;
    }
    return APSTREAM_INPUT_OK;
}

int apstream_check_records(const apstream_options *o, uint64_t records)
{
    if (records > 0)
        return 0;
    fprintf(stderr, "apstream: %s: error: no records: nothing was checked\n", input_name(o));
    return 1;
}
