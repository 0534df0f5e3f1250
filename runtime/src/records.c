/* records.c - captured streams as JSON records (see apr_records.h). */
#include "apr_records.h"

#include <stdlib.h>
#include <string.h>

#include "apr_json.h"

#include "apr_jsonl.h"
#include "apr_sse.h"

apr_record_format apr_records_detect(const char *data, size_t len)
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
            return APR_FORMAT_SSE;
    }
    /* one document over several lines: a pretty-printed JSON file */
    if (memchr(data + i, '\n', len - i) != NULL && apr_json_validate(data, len, NULL, NULL) == APR_OK) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t rest = (size_t)(data + len - nl);
        while (rest > 0 && (nl[rest - 1] == '\n' || nl[rest - 1] == '\r' || nl[rest - 1] == ' ' || nl[rest - 1] == '\t'))
            rest--;
        if (rest > 1)
            return APR_FORMAT_JSON;
    }
    return APR_FORMAT_JSONL;
}

typedef struct split_state {
    const char *data;
    apr_record_fn on_record;
    apr_record_error_fn on_error;
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
    apr_record rec;
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
    if (s->on_error != NULL)
        s->on_error(s->user, line_of(s, err->offset), err);
    return APR_OK;
}

static apr_status on_sse_event(void *user, const apr_sse_event *ev)
{
    split_state *s = user;
    apr_record rec;
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
    if (s->on_error != NULL)
        s->on_error(s->user, line_of(s, err->offset), err);
    return APR_OK;
}

int apr_records_split(const char *data, size_t len, apr_record_format format, size_t max_record,
                apr_record_fn on_record, apr_record_error_fn on_error, void *user)
{
    split_state s;
    char *storage;
    apr_error err = APR_ERROR_INIT;
    apr_status st = APR_OK;
    if (format == APR_FORMAT_AUTO)
        format = apr_records_detect(data, len);
    if (format == APR_FORMAT_JSON) {
        apr_record rec;
        memset(&rec, 0, sizeof rec);
        rec.text = data;
        rec.len = len;
        rec.line = 1;
        return on_record(user, &rec);
    }
    storage = malloc(max_record + 1 + APR_PADDING); /* SSE records are padded (apr_common.h) */
    if (storage == NULL)
        return -1;
    memset(&s, 0, sizeof s);
    s.data = data;
    s.on_record = on_record;
    s.on_error = on_error;
    s.user = user;
    s.line_at = 1;
    if (format == APR_FORMAT_SSE) {
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
