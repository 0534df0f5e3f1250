/* records.c - captured streams as JSON records (see aps/records.h). */
#include "aps/records.h"

#include <stdlib.h>
#include <string.h>

#include "aps/json.h"

#include "aps/jsonl.h"
#include "aps/sse.h"

aps_record_format aps_records_detect(const char *data, size_t len)
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
            return APS_FORMAT_SSE;
    }
    /* one document over several lines: a pretty-printed JSON file */
    if (memchr(data + i, '\n', len - i) != NULL && aps_json_validate(data, len, NULL, NULL) == APS_OK) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t rest = (size_t)(data + len - nl);
        while (rest > 0 && (nl[rest - 1] == '\n' || nl[rest - 1] == '\r' || nl[rest - 1] == ' ' || nl[rest - 1] == '\t'))
            rest--;
        if (rest > 1)
            return APS_FORMAT_JSON;
    }
    return APS_FORMAT_JSONL;
}

typedef struct split_state {
    const char *data;
    aps_record_fn on_record;
    aps_record_error_fn on_error;
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

static aps_status on_jsonl_line(void *user, const aps_jsonl_line *line)
{
    split_state *s = user;
    aps_record rec;
    memset(&rec, 0, sizeof rec);
    rec.text = line->text;
    rec.len = line->len;
    rec.line = line->line_no;
    s->stop = s->on_record(s->user, &rec);
    return s->stop ? APS_E_STATE : APS_OK;
}

static aps_status on_jsonl_error(void *user, const aps_error *err)
{
    split_state *s = user;
    if (s->on_error != NULL)
        s->on_error(s->user, line_of(s, err->offset), err);
    return APS_OK;
}

static aps_status on_sse_event(void *user, const aps_sse_event *ev)
{
    split_state *s = user;
    aps_record rec;
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
    return s->stop ? APS_E_STATE : APS_OK;
}

static aps_status on_sse_error(void *user, const aps_error *err)
{
    split_state *s = user;
    if (s->on_error != NULL)
        s->on_error(s->user, line_of(s, err->offset), err);
    return APS_OK;
}

int aps_records_split(const char *data, size_t len, aps_record_format format, size_t max_record,
                aps_record_fn on_record, aps_record_error_fn on_error, void *user)
{
    split_state s;
    char *storage;
    aps_error err = APS_ERROR_INIT;
    aps_status st = APS_OK;
    if (format == APS_FORMAT_AUTO)
        format = aps_records_detect(data, len);
    if (format == APS_FORMAT_JSON) {
        aps_record rec;
        memset(&rec, 0, sizeof rec);
        rec.text = data;
        rec.len = len;
        rec.line = 1;
        return on_record(user, &rec);
    }
    storage = malloc(max_record + 1 + APS_PADDING); /* SSE records are padded (aps/common.h) */
    if (storage == NULL)
        return -1;
    memset(&s, 0, sizeof s);
    s.data = data;
    s.on_record = on_record;
    s.on_error = on_error;
    s.user = user;
    s.line_at = 1;
    if (format == APS_FORMAT_SSE) {
        aps_sse_parser p;
        aps_sse_parser_init(&p, storage, max_record, NULL, on_sse_event, on_sse_error, &s);
        st = aps_sse_parser_push(&p, data, len, &err);
        if (st == APS_OK)
            st = aps_sse_parser_finish(&p, &err);
    } else {
        aps_jsonl_splitter sp;
        aps_jsonl_splitter_init(&sp, storage, max_record, on_jsonl_line, on_jsonl_error, &s);
        st = aps_jsonl_splitter_push(&sp, data, len, &err);
        if (st == APS_OK)
            st = aps_jsonl_splitter_finish(&sp, &err);
    }
    free(storage);
    if (s.stop)
        return s.stop;
    return st == APS_OK ? 0 : -1;
}

/* Whether the line [line, end) is a field SSE captures use, or a comment. */
static int is_sse_field(const char *line, size_t n)
{
    static const char *const names[] = { "data", "event", "id", "retry" };
    const char *colon = memchr(line, ':', n);
    size_t name_len = colon != NULL ? (size_t)(colon - line) : n, k;
    if (name_len == 0)
        return 1; /* a comment */
    for (k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strlen(names[k]) == name_len && memcmp(line, names[k], name_len) == 0)
            return 1;
    return 0;
}

void aps_records_sse_check(const char *data, size_t len, aps_records_sse_shape *out)
{
    size_t i = 0;
    uint64_t line = 1, event_line = 0;
    memset(out, 0, sizeof *out);
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len) {
        size_t start = i, n;
        int terminated;
        while (i < len && data[i] != '\n' && data[i] != '\r')
            i++;
        n = i - start;
        terminated = i < len;
        /* CR LF, LF or CR ends a line */
        if (i < len && data[i] == '\r' && i + 1 < len && data[i + 1] == '\n')
            i++;
        if (i < len)
            i++;
        if (n == 0) {
            event_line = 0; /* a blank line ends the event */
        } else if (!is_sse_field(data + start, n)) {
            if (out->bad_line == 0)
                out->bad_line = line;
        } else if (data[start] != ':' && event_line == 0) {
            event_line = line;
        }
        /* a last line without its line break is cut too */
        if (!terminated && n > 0 && event_line == 0 && data[start] == ':')
            event_line = line;
        line++;
    }
    out->open_line = event_line;
}

uint64_t aps_records_jsonl_check(const char *data, size_t len, const char **why)
{
    const char *nul = memchr(data, '\0', len);
    size_t i = 0;
    if (nul != NULL) {
        uint64_t line = 1;
        for (i = 0; data + i < nul; i++)
            line += data[i] == '\n';
        *why = "not JSONL or SSE: a NUL byte: binary data";
        return line;
    }
    while (i < len) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t end = nl != NULL ? (size_t)(nl - data) : len;
        if (end > i && aps_json_validate(data + i, end - i, NULL, NULL) == APS_OK)
            return 0;
        i = end + 1;
    }
    *why = "not JSONL or SSE: no line is a JSON text";
    return len > 0 ? 1 : 0;
}

void aps_records_gate_check(const char *data, size_t len, aps_record_format format, int strict,
                            aps_records_gate *out)
{
    aps_records_sse_shape shape;
    memset(out, 0, sizeof *out);
    if (format == APS_FORMAT_JSONL) {
        /* a JSON text that is not JSON is reported as an invalid record; bytes that are no capture, once */
        if ((out->line = aps_records_jsonl_check(data, len, &out->reason)) != 0) {
            out->verdict = APS_RECORDS_REJECT;
            out->severity = "error";
        }
        return;
    }
    if (format != APS_FORMAT_SSE)
        return;
    aps_records_sse_check(data, len, &shape);
    if (shape.bad_line != 0) {
        /* the SSE rules skip lines they do not know: without this, anything would pass as an empty stream */
        out->verdict = APS_RECORDS_REJECT;
        out->severity = "error";
        out->line = shape.bad_line;
        out->reason = "not SSE: the line is not a data, event, id or retry field or a comment";
    } else if (shape.open_line != 0) {
        /* the SSE rules drop an unfinished event silently: a capture cut short */
        out->verdict = strict ? APS_RECORDS_READ_AND_FAIL : APS_RECORDS_READ;
        out->severity = strict ? "error" : "warning";
        out->line = shape.open_line;
        out->reason = "the stream ends inside the event that starts here";
    }
}
