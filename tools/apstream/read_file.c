/* read_file.c - apstream's input: a whole file, or standard input for "-". */
#include <errno.h>
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
