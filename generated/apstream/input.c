/* input.c - reading captured streams as JSONL or SSE records (see input.h). */
#include "input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apr_jsonl.h"
#include "apr_sse.h"

int input_read_file(const char *path, char **data, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (f == NULL) {
        fprintf(stderr, "apstream: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        if (n == cap) {
            char *grown = realloc(buf, cap ? cap * 2 : 1 << 16);
            if (grown == NULL) {
                fprintf(stderr, "apstream: %s: out of memory\n", path);
                free(buf);
                if (f != stdin)
                    fclose(f);
                return -1;
            }
            buf = grown;
            cap = cap ? cap * 2 : 1 << 16;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        fprintf(stderr, "apstream: %s: read error\n", path);
        free(buf);
        if (f != stdin)
            fclose(f);
        return -1;
    }
    if (f != stdin)
        fclose(f);
    *data = buf;
    *len = n;
    return 0;
}

input_format input_detect(const char *data, size_t len)
{
    static const char *const fields[] = { "data:", "event:", "id:", "retry:", ":" };
    size_t i = 0, k;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
        i++;
    for (k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        size_t n = strlen(fields[k]);
        if (len - i >= n && memcmp(data + i, fields[k], n) == 0)
            return FORMAT_SSE;
    }
    return FORMAT_JSONL;
}

typedef struct split_state {
    const char *data;
    input_record_fn on_record;
    input_error_fn on_error;
    void *user;
    int stop;
    /* line counting for SSE offsets: offsets only grow, so one pass suffices */
    uint64_t counted_to;
    uint64_t line_at;
} split_state;

static uint64_t line_of(split_state *s, uint64_t offset)
{
    while (s->counted_to < offset) {
        if (s->data[s->counted_to] == '\n')
            s->line_at++;
        s->counted_to++;
    }
    return s->line_at;
}

static apr_status on_jsonl_line(void *user, const apr_jsonl_line *line)
{
    split_state *s = user;
    input_record rec;
    memset(&rec, 0, sizeof rec);
    rec.text = line->text;
    rec.len = line->len;
    rec.line = line->line_no;
    s->stop = s->on_record(s->user, &rec);
    return s->stop ? APR_E_STATE : APR_OK;
}

static apr_status on_jsonl_error(void *user, const apr_error *err)
{
    split_state *s = user;
    s->on_error(s->user, line_of(s, err->offset), err);
    return APR_OK;
}

static apr_status on_sse_event(void *user, const apr_sse_event *ev)
{
    split_state *s = user;
    input_record rec;
    memset(&rec, 0, sizeof rec);
    rec.text = ev->data;
    rec.len = ev->data_len;
    rec.line = line_of(s, ev->data_offset);
    rec.from_sse = 1;
    rec.sse_type = ev->type;
    rec.sse_type_len = ev->type_len;
    rec.sse_id = ev->last_id;
    rec.sse_id_len = ev->last_id_len;
    s->stop = s->on_record(s->user, &rec);
    return s->stop ? APR_E_STATE : APR_OK;
}

static apr_status on_sse_error(void *user, const apr_error *err)
{
    split_state *s = user;
    s->on_error(s->user, line_of(s, err->offset), err);
    return APR_OK;
}

int input_split(const char *data, size_t len, input_format format, size_t max_record,
                input_record_fn on_record, input_error_fn on_error, void *user)
{
    split_state s;
    char *storage = malloc(max_record + 1);
    apr_error err = APR_ERROR_INIT;
    apr_status st;
    if (storage == NULL) {
        fprintf(stderr, "apstream: out of memory\n");
        return -1;
    }
    memset(&s, 0, sizeof s);
    s.data = data;
    s.on_record = on_record;
    s.on_error = on_error;
    s.user = user;
    s.line_at = 1;
    if (format == FORMAT_AUTO)
        format = input_detect(data, len);
    if (format == FORMAT_SSE) {
        apr_sse_parser p;
        apr_sse_parser_init(&p, storage, max_record, NULL, on_sse_event, on_sse_error, &s);
        st = apr_sse_parser_push(&p, data, len, &err);
        if (st == APR_OK)
            st = apr_sse_parser_finish(&p, &err);
    } else {
        apr_jsonl_splitter sp;
        apr_jsonl_splitter_init(&sp, storage, max_record, on_jsonl_line, on_jsonl_error, &s);
        st = apr_jsonl_splitter_push(&sp, data, len, &err);
        if (st == APR_OK)
            st = apr_jsonl_splitter_finish(&sp, &err);
    }
    free(storage);
    if (s.stop)
        return s.stop;
    return st == APR_OK ? 0 : -1;
}
