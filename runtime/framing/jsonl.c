/*
 * jsonl.c - JSON Lines splitter (see aps/jsonl.h).
 *
 * A line that lies whole in one push is handed out in place; only a line
 * split over pushes is gathered into the storage. A CR at the end of a push
 * is held back instead of stored, because only the next byte tells whether it
 * is the CR of a CRLF (stripped) or content: so the length limit applies to
 * the same bytes whatever the chunking.
 */
#include "aps/jsonl.h"

#include <string.h>

void aps_jsonl_splitter_init(aps_jsonl_splitter *s, void *storage, size_t cap,
                             aps_jsonl_line_fn on_line, aps_jsonl_error_fn on_error,
                             void *user)
{
    memset(s, 0, sizeof *s);
    s->buf = storage;
    s->cap = storage != NULL ? cap : 0;
    s->on_line = on_line;
    s->on_error = on_error;
    s->user = user;
    s->line_no = 1;
}

void aps_jsonl_splitter_reset(aps_jsonl_splitter *s)
{
    aps_jsonl_splitter_init(s, s->buf, s->cap, s->on_line, s->on_error, s->user);
}

static int is_blank(const char *t, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++)
        if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r')
            return 0;
    return 1;
}

static aps_status too_long(aps_jsonl_splitter *s)
{
    aps_error e = APS_ERROR_INIT;
    s->skipping = 1;
    s->len = 0;
    s->cr_held = 0;
    aps_error_set(&e, APS_E_LIMIT, (size_t)s->line_offset,
                  "JSONL line %llu is longer than the maximum of %zu bytes; line skipped",
                  (unsigned long long)s->line_no, s->cap);
    return s->on_error != NULL ? s->on_error(s->user, &e) : APS_OK;
}

static aps_status deliver(aps_jsonl_splitter *s, const char *text, size_t len)
{
    aps_jsonl_line line;
    if (len > s->cap)
        return too_long(s);
    if (is_blank(text, len) || s->on_line == NULL)
        return APS_OK;
    line.text = text;
    line.len = len;
    line.line_no = s->line_no;
    line.offset = s->line_offset;
    return s->on_line(s->user, &line);
}

/* Adds bytes to a line split over pushes; a line past the maximum is dropped. */
static aps_status gather(aps_jsonl_splitter *s, const char *t, size_t len)
{
    if (s->skipping || len == 0)
        return APS_OK;
    if (len > s->cap - s->len)
        return too_long(s);
    memcpy(s->buf + s->len, t, len);
    s->len += len;
    return APS_OK;
}

/* A held CR turned out to be content: store it. */
static aps_status release_cr(aps_jsonl_splitter *s)
{
    if (!s->cr_held)
        return APS_OK;
    s->cr_held = 0;
    return gather(s, "\r", 1);
}

static aps_status split(aps_jsonl_splitter *s, const char *t, size_t n)
{
    size_t i = 0;
    aps_status st = APS_OK;
    while (i < n && st == APS_OK) {
        const char *lf = memchr(t + i, '\n', n - i);
        size_t end = lf != NULL ? (size_t)(lf - t) : n, len = end - i;
        int cr_last = len > 0 && t[end - 1] == '\r';
        if (lf == NULL) {
            /* Partial line: keep it, holding back a final CR. */
            if (!s->skipping) {
                st = release_cr(s);
                if (st == APS_OK)
                    st = gather(s, t + i, len - cr_last);
                if (!s->skipping)
                    s->cr_held = cr_last;
            }
            break;
        }
        if (s->skipping) {
            /* The rest of a line already reported as too long. */
        } else if (s->len == 0 && !s->cr_held) {
            st = deliver(s, t + i, len - cr_last);
        } else {
            /* A held CR is the line's final CR only when nothing follows it. */
            if (len > 0)
                st = release_cr(s);
            if (st == APS_OK)
                st = gather(s, t + i, len - cr_last);
            if (st == APS_OK && !s->skipping)
                st = deliver(s, s->buf, s->len);
        }
        s->len = 0;
        s->cr_held = 0;
        s->skipping = 0;
        s->line_no++;
        s->line_offset = s->offset + end + 1;
        i = end + 1;
    }
    return st;
}

static aps_status stopped(aps_jsonl_splitter *s, aps_status st, aps_error *err)
{
    s->failed = 1;
    return aps_error_set(err, st, (size_t)s->line_offset,
                         "JSONL splitting stopped by a callback at line %llu: %s",
                         (unsigned long long)s->line_no, aps_status_str(st));
}

aps_status aps_jsonl_splitter_push(aps_jsonl_splitter *s, const void *bytes, size_t len,
                                   aps_error *err)
{
    aps_status st;
    if (s->failed)
        return aps_error_set(err, APS_E_STATE, (size_t)s->offset,
                             "JSONL splitter was stopped by a callback");
    st = split(s, bytes, len);
    s->offset += len;
    return st == APS_OK ? APS_OK : stopped(s, st, err);
}

aps_status aps_jsonl_splitter_finish(aps_jsonl_splitter *s, aps_error *err)
{
    aps_status st = APS_OK;
    if (s->failed)
        return aps_error_set(err, APS_E_STATE, (size_t)s->offset,
                             "JSONL splitter was stopped by a callback");
    /* A final line without LF; a CR that ended the stream is stripped too. */
    if (!s->skipping && s->len > 0)
        st = deliver(s, s->buf, s->len);
    s->len = 0;
    s->cr_held = 0;
    s->skipping = 0;
    return st == APS_OK ? APS_OK : stopped(s, st, err);
}
