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
    aps_records_gate g;
    *format = o->format != APS_FORMAT_AUTO ? o->format : aps_records_detect(data, len);
    aps_records_gate_check(data, len, *format, o->strict, &g);
    if (g.severity != NULL)
        fprintf(stderr, "apstream: %s:%" PRIu64 ": %s: %s\n", input_name(o), g.line, g.severity, g.reason);
    return g.verdict == APS_RECORDS_REJECT ? APSTREAM_INPUT_REJECTED
           : g.verdict == APS_RECORDS_READ_AND_FAIL ? APSTREAM_INPUT_FAILED
                                                    : APSTREAM_INPUT_OK;
}

int apstream_check_records(const apstream_options *o, uint64_t records)
{
    if (records > 0)
        return 0;
    fprintf(stderr, "apstream: %s: error: no records: nothing was checked\n", input_name(o));
    return 1;
}
