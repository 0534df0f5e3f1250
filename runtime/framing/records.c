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

/* Lines before the first JSON text of a JSONL stream held back at most. */
#define HOLD_MAX ((size_t)1 << 20)

/* SSE field names are at most 5 bytes ("event", "retry"): a 6th byte without a colon is no field. */
#define SSE_NAME_MAX 6

struct aps_records_reader {
    aps_records_config c;
    aps_record_format format;  /* APS_FORMAT_AUTO while the head is read */
    int stop;                  /* once not 0, what push and finish return */
    aps_records_gate gate;
    uint64_t offset;           /* stream offset of the next byte pushed */
    char *head;                /* the head read for detection; JSON: the document (padded) */
    size_t head_len, head_cap;
    int head_dropped;          /* JSON: the document is longer than max_record */
    char *storage;             /* the splitter's or the parser's: max_record + 1, padded */
    aps_jsonl_splitter sp;
    aps_sse_parser sse;

    /* JSONL: lines before the first JSON text, as [line][len][text, padded] */
    int seen_json;
    char *held;
    size_t held_len, held_cap;

    /*
     * SSE: the shape check reads each line before the parser gets it, and
     * pushes the parser up to the start of each field line first, so that
     * what the parser reports belongs to the lines already passed: the
     * cb_* members say where those are, whatever way the stream is chunked.
     */
    uint64_t line, line_off;   /* the current line and the offset of its first byte */
    int classified;            /* the current line's kind is known: skip to its end */
    char name[SSE_NAME_MAX];
    size_t name_len;
    int cr_pending;            /* a CR ended the last push: an LF first in the next is its pair */
    int bom;                   /* bytes of a leading BOM matched; -1 past the start */
    uint64_t event_line;       /* the open event's first field line; 0: no event open */
    int event_data;            /* the open event has a data line */
    uint64_t cb_event_line, cb_data_line, cb_field_line, cb_data_off, cb_field_off;
    uint64_t cb_comment_line; /* the line of the comment the parser reports next */
    const char *chunk;         /* the bytes being checked, from stream offset chunk_off */
    uint64_t chunk_off;
    size_t pushed;             /* how much of them the parser has */
};

static void tell_gate(aps_records_reader *r, aps_records_verdict verdict, const char *severity, uint64_t line,
                      const char *reason)
{
    r->gate.verdict = verdict;
    r->gate.severity = severity;
    r->gate.line = line;
    r->gate.reason = reason;
    if (r->c.on_gate != NULL)
        r->c.on_gate(r->c.user, &r->gate);
}

static int reject(aps_records_reader *r, uint64_t line, const char *reason)
{
    tell_gate(r, APS_RECORDS_REJECT, "error", line, reason);
    r->stop = APS_RECORDS_REJECTED;
    return r->stop;
}

static int deliver(aps_records_reader *r, const char *text, size_t len, uint64_t line)
{
    aps_record rec;
    int v;
    memset(&rec, 0, sizeof rec);
    rec.text = text;
    rec.len = len;
    rec.line = line;
    v = r->c.on_record(r->c.user, &rec);
    if (v != 0 && r->stop == 0)
        r->stop = v;
    return v;
}

/* Grows *buf to hold `need` bytes and APS_PADDING more. */
static int reserve(char **buf, size_t *cap, size_t need)
{
    size_t ncap = *cap ? *cap : 4096;
    char *grown;
    if (need > SIZE_MAX - APS_PADDING)
        return -1;
    need += APS_PADDING;
    if (need <= *cap)
        return 0;
    while (ncap < need)
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    if ((grown = realloc(*buf, ncap)) == NULL)
        return -1;
    *buf = grown;
    *cap = ncap;
    return 0;
}

/* ---- JSONL ---- */

static aps_status hold(aps_records_reader *r, const aps_jsonl_line *line)
{
    uint64_t no = line->line_no;
    size_t at = r->held_len, need = at + 16 + ((line->len + APS_PADDING + 7) & ~(size_t)7);
    if (need - 16 > HOLD_MAX) {
        reject(r, 1, "not JSONL or SSE: no line of the first MiB is a JSON text");
        return APS_E_STATE;
    }
    if (reserve(&r->held, &r->held_cap, need) != 0) {
        r->stop = APS_RECORDS_NOMEM;
        return APS_E_NOMEM;
    }
    memcpy(r->held + at, &no, 8);
    memcpy(r->held + at + 8, &line->len, sizeof line->len);
    memcpy(r->held + at + 16, line->text, line->len);
    r->held_len = need;
    return APS_OK;
}

/* A JSON text was seen: the lines held before it are records after all. */
static int release_held(aps_records_reader *r)
{
    size_t at = 0;
    while (at < r->held_len && r->stop == 0) {
        uint64_t no;
        size_t len;
        memcpy(&no, r->held + at, 8);
        memcpy(&len, r->held + at + 8, sizeof len);
        deliver(r, r->held + at + 16, len, no);
        at += 16 + ((len + APS_PADDING + 7) & ~(size_t)7);
    }
    free(r->held);
    r->held = NULL;
    r->held_len = r->held_cap = 0;
    return r->stop;
}

static aps_status on_jsonl_line(void *user, const aps_jsonl_line *line)
{
    aps_records_reader *r = user;
    if (memchr(line->text, '\0', line->len) != NULL) {
        reject(r, line->line_no, "not JSONL or SSE: a NUL byte: binary data");
        return APS_E_STATE;
    }
    if (!r->seen_json) {
        if (aps_json_validate(line->text, line->len, NULL, NULL) != APS_OK)
            return hold(r, line);
        r->seen_json = 1;
        if (release_held(r) != 0)
            return APS_E_STATE;
    }
    return deliver(r, line->text, line->len, line->line_no) != 0 ? APS_E_STATE : APS_OK;
}

static aps_status on_jsonl_error(void *user, const aps_error *err)
{
    aps_records_reader *r = user;
    /* the splitter reports a line too long while it is on that line */
    if (r->c.on_error != NULL)
        r->c.on_error(r->c.user, r->sp.line_no, err);
    return APS_OK;
}

/* ---- SSE ---- */

static aps_status on_sse_event(void *user, const aps_sse_event *ev)
{
    aps_records_reader *r = user;
    aps_record rec;
    int v;
    memset(&rec, 0, sizeof rec);
    rec.text = ev->data;
    rec.len = ev->data_len;
    rec.line = r->cb_data_line;
    rec.from_sse = 1;
    rec.sse_type = ev->type;
    rec.sse_type_len = ev->type_len;
    rec.sse_id = ev->last_id;
    rec.sse_id_len = ev->last_id_len;
    v = r->c.on_record(r->c.user, &rec);
    if (v != 0 && r->stop == 0)
        r->stop = v;
    return v != 0 ? APS_E_STATE : APS_OK;
}

static aps_status on_sse_comment(void *user, const char *text, size_t len, uint64_t offset)
{
    aps_records_reader *r = user;
    int v = r->c.on_comment(r->c.user, r->cb_comment_line, text, len);
    (void)offset;
    if (v != 0 && r->stop == 0)
        r->stop = v;
    return v != 0 ? APS_E_STATE : APS_OK;
}

static aps_status on_sse_error(void *user, const aps_error *err)
{
    aps_records_reader *r = user;
    uint64_t at = err->offset;
    /* in the field line being read, in the event's data (bad UTF-8), or about the event (its id or type) */
    uint64_t line = at >= r->cb_field_off ? r->cb_field_line : at >= r->cb_data_off ? r->cb_data_line : r->cb_event_line;
    if (r->c.on_error != NULL)
        r->c.on_error(r->c.user, line, err);
    return APS_OK;
}

/* Gives the parser the checked bytes up to chunk index `upto`. */
static int sse_catch_up(aps_records_reader *r, size_t upto)
{
    aps_error e = APS_ERROR_INIT;
    if (upto > r->pushed) {
        if (aps_sse_parser_push(&r->sse, r->chunk + r->pushed, upto - r->pushed, &e) != APS_OK && r->stop == 0)
            r->stop = APS_RECORDS_NOMEM; /* only a callback stops the parser, and it set stop */
        r->pushed = upto;
    }
    return r->stop;
}

static int is_sse_name(const char *name, size_t n, int *data)
{
    *data = n == 4 && memcmp(name, "data", 4) == 0;
    return *data || (n == 5 && (memcmp(name, "event", 5) == 0 || memcmp(name, "retry", 5) == 0)) ||
           (n == 2 && memcmp(name, "id", 2) == 0);
}

/* The current line's kind is known: a comment (colon first), a field, or no SSE. */
static int sse_classify(aps_records_reader *r, int colon)
{
    int data;
    r->classified = 1;
    if (colon && r->name_len == 0) {
        if (r->c.on_comment == NULL)
            return 0;
        /* the events before the comment go first; the parser reports it at its line's end */
        if (r->line_off > r->chunk_off && sse_catch_up(r, (size_t)(r->line_off - r->chunk_off)) != 0)
            return r->stop;
        r->cb_comment_line = r->line;
        return 0;
    }
    /* the events before this line are the parser's, whatever this line is */
    if (r->line_off > r->chunk_off && sse_catch_up(r, (size_t)(r->line_off - r->chunk_off)) != 0)
        return r->stop;
    if (!is_sse_name(r->name, r->name_len, &data))
        return reject(r, r->line, "not SSE: the line is not a data, event, id or retry field or a comment");
    if (r->event_line == 0) {
        r->event_line = r->cb_event_line = r->line;
        r->event_data = 0;
        r->cb_data_off = UINT64_MAX;
    }
    if (data && !r->event_data) {
        r->event_data = 1;
        r->cb_data_line = r->line;
        r->cb_data_off = r->line_off;
    }
    r->cb_field_line = r->line;
    r->cb_field_off = r->line_off;
    return 0;
}

static int sse_push(aps_records_reader *r, const char *s, size_t n)
{
    static const char bom[3] = { '\xEF', '\xBB', '\xBF' };
    size_t i = 0, cr = 0;
    int cr_known = 0;
    r->chunk = s;
    r->chunk_off = r->offset;
    r->pushed = 0;
    while (i < n && r->stop == 0) {
        if (r->bom >= 0) {
            /* a leading BOM is no part of the first line; a partial one is */
            if (s[i] == bom[r->bom]) {
                if (++r->bom == 3) {
                    r->bom = -1;
                    r->line_off = r->offset + i + 1;
                }
                i++;
                continue;
            }
            memcpy(r->name, bom, (size_t)r->bom);
            r->name_len = (size_t)r->bom;
            r->bom = -1;
        }
        if (r->cr_pending) {
            r->cr_pending = 0;
            if (s[i] == '\n') {
                r->line_off = r->offset + ++i;
                continue;
            }
        }
        if (!r->classified) {
            char c = s[i];
            if (c != '\n' && c != '\r') {
                i++;
                if (c == ':')
                    sse_classify(r, 1);
                else if ((r->name[r->name_len++] = c, r->name_len == SSE_NAME_MAX))
                    sse_classify(r, 0);
                continue;
            }
            if (r->name_len == 0) {
                r->event_line = 0; /* a blank line ends the event */
                r->event_data = 0;
            } else if (sse_classify(r, 0) != 0) {
                break;
            }
        } else {
            const char *lf;
            if (!cr_known || cr < i) {
                const char *c = memchr(s + i, '\r', n - i);
                cr = c != NULL ? (size_t)(c - s) : n;
                cr_known = 1;
            }
            lf = memchr(s + i, '\n', cr - i);
            i = lf != NULL ? (size_t)(lf - s) : cr;
            if (i == n)
                break;
        }
        /* s[i] ends the line: CR LF, LF or CR */
        if (s[i] == '\r') {
            if (i + 1 == n)
                r->cr_pending = 1;
            else if (s[i + 1] == '\n')
                i++;
        }
        i++;
        r->line++;
        r->line_off = r->offset + i;
        r->classified = 0;
        r->name_len = 0;
    }
    if (r->stop == 0)
        sse_catch_up(r, n);
    return r->stop;
}

static void sse_finish(aps_records_reader *r)
{
    aps_error e = APS_ERROR_INIT;
    /* a last line without its line break is cut too, comment or not */
    uint64_t open = r->event_line != 0 ? r->event_line : r->classified || r->name_len > 0 ? r->line : 0;
    if (aps_sse_parser_finish(&r->sse, &e) != APS_OK)
        return; /* stopped by a callback, which set stop */
    if (open != 0)
        tell_gate(r, r->c.strict ? APS_RECORDS_READ_AND_FAIL : APS_RECORDS_READ, r->c.strict ? "error" : "warning",
                  open, "the stream ends inside the event that starts here");
}

/* ---- the reader ---- */

static int decide(aps_records_reader *r, aps_record_format format);

aps_records_reader *aps_records_reader_new(const aps_records_config *config)
{
    aps_records_reader *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->c = *config;
    r->line = 1;
    r->cb_data_off = UINT64_MAX;
    if (config->format != APS_FORMAT_AUTO && decide(r, config->format) != 0) {
        aps_records_reader_free(r);
        return NULL;
    }
    return r;
}

void aps_records_reader_free(aps_records_reader *r)
{
    if (r == NULL)
        return;
    free(r->head);
    free(r->held);
    free(r->storage);
    free(r);
}

aps_record_format aps_records_reader_format(const aps_records_reader *r)
{
    return r->format;
}

aps_records_verdict aps_records_reader_verdict(const aps_records_reader *r)
{
    return r->gate.verdict;
}

/* Adds bytes to the head: JSON, or bytes whose format is not decided yet. */
static int head_append(aps_records_reader *r, const char *s, size_t n)
{
    if (r->head_dropped)
        return 0;
    if (r->format == APS_FORMAT_JSON && n > r->c.max_record - r->head_len) {
        aps_error e = APS_ERROR_INIT;
        aps_error_set(&e, APS_E_LIMIT, 0, "the JSON document is longer than the maximum of %zu bytes; not read",
                      r->c.max_record);
        if (r->c.on_error != NULL)
            r->c.on_error(r->c.user, 1, &e);
        r->head_dropped = 1;
        free(r->head);
        r->head = NULL;
        r->head_len = r->head_cap = 0;
        return 0;
    }
    if (reserve(&r->head, &r->head_cap, r->head_len + n) != 0)
        return r->stop = APS_RECORDS_NOMEM;
    memcpy(r->head + r->head_len, s, n);
    r->head_len += n;
    return 0;
}

static int push_decided(aps_records_reader *r, const char *s, size_t n)
{
    aps_error e = APS_ERROR_INIT;
    if (r->format == APS_FORMAT_JSON)
        head_append(r, s, n);
    else if (r->format == APS_FORMAT_SSE)
        sse_push(r, s, n);
    else if (aps_jsonl_splitter_push(&r->sp, s, n, &e) != APS_OK && r->stop == 0)
        r->stop = APS_RECORDS_NOMEM; /* only a callback stops the splitter, and it set stop */
    r->offset += n;
    return r->stop;
}

/* The format is known: set it up and read the head in it. */
static int decide(aps_records_reader *r, aps_record_format format)
{
    char *head = r->head;
    size_t len = r->head_len;
    r->format = format;
    if (format == APS_FORMAT_JSON)
        return 0; /* the head is the document (detected as one within max_record) */
    /* SSE records are padded (aps/common.h) */
    if (r->c.max_record > SIZE_MAX - 1 - APS_PADDING || (r->storage = malloc(r->c.max_record + 1 + APS_PADDING)) == NULL)
        return r->stop = APS_RECORDS_NOMEM;
    if (format == APS_FORMAT_SSE) {
        r->bom = 0;
        aps_sse_parser_init(&r->sse, r->storage, r->c.max_record, NULL, on_sse_event, on_sse_error, r);
        if (r->c.on_comment != NULL)
            aps_sse_parser_on_comment(&r->sse, on_sse_comment);
    } else {
        aps_jsonl_splitter_init(&r->sp, r->storage, r->c.max_record, on_jsonl_line, on_jsonl_error, r);
    }
    if (head == NULL)
        return 0;
    r->head = NULL;
    r->head_len = r->head_cap = 0;
    push_decided(r, head, len);
    free(head);
    return r->stop;
}

/*
 * The format of a stream from its head (aps_records_reader), or
 * APS_FORMAT_AUTO when more bytes are needed. Past `limit` bytes the
 * decision is made on the first `limit` alone, so that it is the same
 * however the stream was chunked.
 */
static aps_record_format detect_head(const char *d, size_t len, int eof, size_t limit)
{
    static const char *const fields[] = { "data:", "event:", "id:", "retry:", ":" };
    int full = len > limit;
    size_t i, k, end;
    const char *nl;
    if (full)
        len = limit;
    i = len >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < len && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        i++;
    nl = memchr(d + i, '\n', len - i);
    if (nl == NULL && !eof && !full)
        return APS_FORMAT_AUTO; /* the first line is not all there */
    for (k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        size_t n = strlen(fields[k]);
        if (len - i >= n && memcmp(d + i, fields[k], n) == 0)
            return APS_FORMAT_SSE;
    }
    end = nl != NULL ? (size_t)(nl - d) : len;
    if (end > i && d[end - 1] == '\r')
        end--;
    if (nl != NULL && aps_json_validate(d + i, end - i, NULL, NULL) == APS_OK)
        return APS_FORMAT_JSONL; /* a JSON text on the first line: the rest cannot make one document of it */
    if (full)
        return APS_FORMAT_JSONL;
    return eof ? aps_records_detect(d, len) : APS_FORMAT_AUTO;
}

int aps_records_push(aps_records_reader *r, const void *bytes, size_t len)
{
    aps_record_format f;
    if (r->stop != 0 || len == 0)
        return r->stop;
    if (r->format != APS_FORMAT_AUTO)
        return push_decided(r, bytes, len);
    if (head_append(r, bytes, len) != 0)
        return r->stop;
    f = detect_head(r->head, r->head_len, 0, r->c.max_record);
    return f == APS_FORMAT_AUTO ? 0 : decide(r, f);
}

int aps_records_finish(aps_records_reader *r)
{
    aps_error e = APS_ERROR_INIT;
    if (r->stop != 0)
        return r->stop;
    if (r->format == APS_FORMAT_AUTO &&
        decide(r, r->head != NULL ? detect_head(r->head, r->head_len, 1, r->c.max_record) : APS_FORMAT_JSONL) != 0)
        return r->stop;
    switch (r->format) {
    case APS_FORMAT_JSON:
        if (r->head_len > 0)
            deliver(r, r->head, r->head_len, 1);
        break;
    case APS_FORMAT_SSE:
        sse_finish(r);
        break;
    default:
        if (aps_jsonl_splitter_finish(&r->sp, &e) != APS_OK && r->stop == 0)
            r->stop = APS_RECORDS_NOMEM;
        if (r->stop == 0 && !r->seen_json && r->offset > 0)
            reject(r, 1, "not JSONL or SSE: no line is a JSON text");
        break;
    }
    return r->stop;
}
