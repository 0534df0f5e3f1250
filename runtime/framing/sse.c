/*
 * sse.c - Server-Sent Events encoder and parser (see aps/sse.h).
 *
 * The parser never buffers a whole line. Each line is cut, as it arrives, into
 * a field name (only names of up to five bytes can be known fields, so at most
 * that much is held) and a value that goes straight to where it belongs: the
 * data buffer, the event type, the id being read, or the retry number. So a
 * line split over pushes costs nothing extra, and comment and unknown lines
 * cost no storage at all. A line that arrives whole (the usual one) is
 * taken in one step (whole_line), an event's only data line borrowed where
 * it lies, never copied.
 *
 * Lines are found by aps_lines (lines.h), which also proves the bytes it passes
 * well-formed UTF-8 where it can (ASCII, and whole characters within a
 * push): a value made only of proven pieces is not checked again, since
 * well-formed pieces joined are well-formed. Anything unproven gets the
 * exact check (aps_utf8_check) it always had, so verdicts and error
 * offsets are the exact check's.
 */
#include "aps/sse.h"
#include "aps/utf8.h"
#include "lines.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* Encoder                                                                  */
/* ------------------------------------------------------------------------ */

void aps_sse_writer_init_buffer(aps_sse_writer *w, char *buf, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->cap = buf != NULL ? cap : 0;
}

void aps_sse_writer_init_sink(aps_sse_writer *w, aps_sse_sink_fn sink, void *user)
{
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->user = user;
}

size_t aps_sse_writer_length(const aps_sse_writer *w)
{
    return w->len;
}

void aps_sse_writer_reset(aps_sse_writer *w)
{
    w->len = 0;
}

static aps_status put(aps_sse_writer *w, const char *bytes, size_t len)
{
    if (w->sink != NULL)
        return len > 0 ? w->sink(w->user, bytes, len) : APS_OK;
    if (len > w->cap - w->len)
        return APS_E_LIMIT;
    if (len > 0)
        memcpy(w->buf + w->len, bytes, len);
    w->len += len;
    return APS_OK;
}

/* Offset of the first CR or LF in s[0..len), or len when there is none. */
static size_t line_break(const char *s, size_t len)
{
    const char *lf = len > 0 ? memchr(s, '\n', len) : NULL;
    size_t n = lf != NULL ? (size_t)(lf - s) : len;
    const char *cr = n > 0 ? memchr(s, '\r', n) : NULL;
    return cr != NULL ? (size_t)(cr - s) : n;
}

static aps_status put_field(aps_sse_writer *w, const char *name, size_t name_len,
                            const char *value, size_t len)
{
    aps_status st = put(w, name, name_len);
    if (st == APS_OK)
        st = put(w, value, len);
    if (st == APS_OK)
        st = put(w, "\n", 1);
    return st;
}

/* Ends a write: in buffer mode a failed write leaves the buffer as it was. */
static aps_status finish_write(aps_sse_writer *w, size_t start, aps_status st,
                               aps_error *err)
{
    if (st == APS_OK)
        return APS_OK;
    if (w->sink == NULL)
        w->len = start;
    if (st == APS_E_LIMIT && w->sink == NULL)
        return aps_error_set(err, st, SIZE_MAX,
                             "SSE output buffer of %zu bytes is too small", w->cap);
    return aps_error_set(err, st, SIZE_MAX, "SSE sink failed: %s", aps_status_str(st));
}

static aps_status check_name(const char *what, const char *s, size_t len, aps_error *err)
{
    size_t i;
    for (i = 0; i < len; i++)
        if (s[i] == '\r' || s[i] == '\n' || s[i] == '\0')
            return aps_error_set(err, APS_E_ARGUMENT, i,
                                 "SSE %s contains %s at byte %zu, which a field "
                                 "cannot carry", what,
                                 s[i] == '\0' ? "NUL" : s[i] == '\r' ? "CR" : "LF", i);
    return APS_OK;
}

aps_status aps_sse_write_event(aps_sse_writer *w, const char *id, size_t id_len,
                               const char *event, size_t event_len,
                               const char *data, size_t data_len, aps_error *err)
{
    size_t start = w->len;
    aps_status st;
    if (id != NULL && (st = check_name("id", id, id_len, err)) != APS_OK)
        return st;
    if (event != NULL && (st = check_name("event name", event, event_len, err)) != APS_OK)
        return st;
    st = id != NULL ? put_field(w, "id: ", 4, id, id_len) : APS_OK;
    if (st == APS_OK && event != NULL)
        st = put_field(w, "event: ", 7, event, event_len);
    /* One data line per line of data; CRLF counts as one break. */
    for (;;) {
        size_t n = line_break(data, data_len);
        if (st != APS_OK)
            break;
        st = put_field(w, "data: ", 6, data, n);
        if (n == data_len)
            break;
        if (data[n] == '\r' && n + 1 < data_len && data[n + 1] == '\n')
            n++;
        data += n + 1;
        data_len -= n + 1;
    }
    if (st == APS_OK)
        st = put(w, "\n", 1);
    return finish_write(w, start, st, err);
}

aps_status aps_sse_write_comment(aps_sse_writer *w, const char *text, size_t len,
                                 aps_error *err)
{
    size_t start = w->len;
    aps_status st;
    if (line_break(text, len) != len)
        return aps_error_set(err, APS_E_ARGUMENT, line_break(text, len),
                             "SSE comment contains a line break");
    st = len > 0 ? put_field(w, ": ", 2, text, len) : put(w, ":\n", 2);
    return finish_write(w, start, st, err);
}

aps_status aps_sse_write_retry(aps_sse_writer *w, uint64_t ms, aps_error *err)
{
    char digits[24];
    size_t n = sizeof digits, start = w->len;
    do {
        digits[--n] = (char)('0' + ms % 10);
        ms /= 10;
    } while (ms > 0);
    return finish_write(w, start, put_field(w, "retry: ", 7, digits + n, sizeof digits - n),
                        err);
}

/* ------------------------------------------------------------------------ */
/* Parser                                                                   */
/* ------------------------------------------------------------------------ */

/* Where in a line the parser is. */
enum { LINE_START, NAME, VALUE_START, VALUE, SKIP, COMMENT };

/* The field a value belongs to. */
enum { F_UNKNOWN, F_DATA, F_EVENT, F_ID, F_RETRY };

#define KNOWN_NAME_MAX 5 /* "event", "retry" */

static const char bom[3] = { '\xEF', '\xBB', '\xBF' };

/*
 * memcpy(dst, src, len) for a name's few bytes, without the call: two
 * overlapping words or halves, or the bytes one by one below four.
 */
static void copy_short(char *dst, const char *src, size_t len)
{
    uint64_t a, b;
    uint32_t c, d;
    if (len >= 8) {
        size_t i;
        for (i = 0; i + 8 < len; i += 8) {
            memcpy(&a, src + i, 8);
            memcpy(dst + i, &a, 8);
        }
        memcpy(&b, src + len - 8, 8);
        memcpy(dst + len - 8, &b, 8);
    } else if (len >= 4) {
        memcpy(&c, src, 4);
        memcpy(&d, src + len - 4, 4);
        memcpy(dst, &c, 4);
        memcpy(dst + len - 4, &d, 4);
    } else {
        while (len-- > 0)
            *dst++ = *src++;
    }
}

static void clear_event(aps_sse_parser *p)
{
    p->borrowed = NULL;
    p->data_len = 0;
    p->data_lines = 0;
    p->type_len = 0;
    p->event_started = 0;
    p->dropping = 0;
    p->data_unproven = 0;
}

void aps_sse_parser_init(aps_sse_parser *p, void *storage, size_t cap,
                         const aps_sse_options *opts, aps_sse_event_fn on_event,
                         aps_sse_error_fn on_error, void *user)
{
    memset(p, 0, sizeof *p);
    p->data = storage;
    p->data_cap = storage != NULL ? cap : 0;
    if (opts != NULL)
        p->opts = *opts;
    p->on_event = on_event;
    p->on_error = on_error;
    p->user = user;
    p->retry = -1;
    p->retry_event = -1;
}

void aps_sse_parser_on_comment(aps_sse_parser *p, aps_sse_comment_fn on_comment)
{
    p->on_comment = on_comment;
}

void aps_sse_parser_reset(aps_sse_parser *p)
{
    clear_event(p);
    p->id_len[p->id_cur] = 0;
    p->state = LINE_START;
    p->name_len = 0;
    p->cr_pending = 0;
    p->bom_matched = 0;
    p->failed = 0;
    p->offset = 0;
    p->retry_event = -1;
}

static aps_status report(aps_sse_parser *p, aps_status code, uint64_t offset,
                         const char *what, size_t limit)
{
    aps_error e = APS_ERROR_INIT;
    if (code == APS_E_LIMIT)
        aps_error_set(&e, code, (size_t)offset,
                      "SSE event at offset %llu: %s is longer than the maximum "
                      "of %zu bytes; event dropped",
                      (unsigned long long)p->event_offset, what, limit);
    else
        aps_error_set(&e, code, (size_t)offset,
                      "SSE event at offset %llu: %s is not valid UTF-8 "
                      "(byte at offset %llu); event dropped",
                      (unsigned long long)p->event_offset, what,
                      (unsigned long long)offset);
    return p->on_error != NULL ? p->on_error(p->user, &e) : APS_OK;
}

/* Drops the current event: its remaining lines are skipped up to a blank line. */
static aps_status drop(aps_sse_parser *p, aps_status code, uint64_t offset,
                       const char *what, size_t limit)
{
    p->dropping = 1;
    p->state = SKIP;
    return report(p, code, offset, what, limit);
}

static int field_of(const char *name, size_t len)
{
    switch (len) {
    case 2: return memcmp(name, "id", 2) == 0 ? F_ID : F_UNKNOWN;
    case 4: return memcmp(name, "data", 4) == 0 ? F_DATA : F_UNKNOWN;
    case 5:
        if (memcmp(name, "event", 5) == 0)
            return F_EVENT;
        return memcmp(name, "retry", 5) == 0 ? F_RETRY : F_UNKNOWN;
    default: return F_UNKNOWN;
    }
}

/*
 * Moves data that still lies in the caller's bytes into the storage: before
 * more is added to it, and before push returns.
 */
static void own_data(aps_sse_parser *p)
{
    if (p->borrowed != NULL) {
        memcpy(p->data, p->borrowed, p->data_len);
        p->borrowed = NULL;
    }
}

/* The field's name is complete; `offset` is where its value starts. */
static aps_status begin_field(aps_sse_parser *p, int field, uint64_t offset)
{
    p->field = field;
    switch (field) {
    case F_DATA:
        if (p->data_lines++ == 0) {
            p->data_offset = offset;
        } else {
            /* The data lines are joined with LF, stored only between lines so
             * that the maximum is the size of the data delivered. */
            if (p->data_len == p->data_cap)
                return drop(p, APS_E_LIMIT, offset, "data", p->data_cap);
            own_data(p);
            p->data[p->data_len++] = '\n';
        }
        break;
    case F_EVENT:
        p->type_len = 0;
        p->value_unproven = 0;
        break;
    case F_ID:
        p->id_len[!p->id_cur] = 0;
        p->id_nul = 0;
        p->value_unproven = 0;
        break;
    case F_RETRY:
        p->retry_acc = 0;
        p->retry_ok = 1;
        p->retry_digits = 0;
        break;
    default:
        p->state = SKIP;
        return APS_OK;
    }
    p->state = VALUE_START;
    return APS_OK;
}

/*
 * Appends value bytes s[0..len), which start at stream offset `offset`;
 * `proven`: they are well-formed UTF-8.
 */
static aps_status append_value(aps_sse_parser *p, const char *s, size_t len,
                               uint64_t offset, int proven)
{
    size_t i;
    char *pending;
    if (len == 0)
        return APS_OK;
    if (!proven) {
        if (p->field == F_DATA)
            p->data_unproven = 1;
        else
            p->value_unproven = 1;
    }
    switch (p->field) {
    case F_DATA:
        if (len > p->data_cap - p->data_len)
            return drop(p, APS_E_LIMIT, offset + (p->data_cap - p->data_len), "data",
                        p->data_cap);
        /* The common event has one data line that arrives whole in one
         * push: it is delivered from the caller's bytes, never copied. */
        if (p->data_len == 0) {
            p->borrowed = s;
        } else {
            own_data(p);
            memcpy(p->data + p->data_len, s, len);
        }
        p->data_len += len;
        return APS_OK;
    case F_EVENT:
        if (len > APS_SSE_NAME_MAX - p->type_len)
            return drop(p, APS_E_LIMIT, offset + (APS_SSE_NAME_MAX - p->type_len),
                        "event type", APS_SSE_NAME_MAX);
        memcpy(p->type + p->type_len, s, len);
        p->type_len += len;
        return APS_OK;
    case F_ID:
        pending = p->ids[!p->id_cur];
        if (len > APS_SSE_NAME_MAX - p->id_len[!p->id_cur])
            return drop(p, APS_E_LIMIT,
                        offset + (APS_SSE_NAME_MAX - p->id_len[!p->id_cur]), "id",
                        APS_SSE_NAME_MAX);
        memcpy(pending + p->id_len[!p->id_cur], s, len);
        p->id_len[!p->id_cur] += len;
        if (memchr(s, '\0', len) != NULL)
            p->id_nul = 1;
        return APS_OK;
    default: /* F_RETRY */
        for (i = 0; i < len && p->retry_ok; i++) {
            unsigned d = (unsigned char)s[i] - '0';
            /* Not all digits, or beyond int64: the spec says ignore it. */
            if (d > 9 || p->retry_acc > ((uint64_t)INT64_MAX - d) / 10)
                p->retry_ok = 0;
            else
                p->retry_acc = p->retry_acc * 10 + d;
            p->retry_digits = 1;
        }
        return APS_OK;
    }
}

/* The line holding the current field has ended. */
static aps_status end_field(aps_sse_parser *p)
{
    size_t bad;
    switch (p->field) {
    case F_EVENT:
        bad = p->opts.skip_utf8_check || !p->value_unproven
                  ? SIZE_MAX
                  : aps_utf8_check((const uint8_t *)p->type, p->type_len);
        if (bad != SIZE_MAX)
            return drop(p, APS_E_UTF8, p->event_offset, "event type", 0);
        break;
    case F_ID:
        /* An id containing NUL is ignored (the spec's rule). */
        if (p->id_nul)
            break;
        bad = p->opts.skip_utf8_check || !p->value_unproven
                  ? SIZE_MAX
                  : aps_utf8_check((const uint8_t *)p->ids[!p->id_cur], p->id_len[!p->id_cur]);
        if (bad != SIZE_MAX)
            return drop(p, APS_E_UTF8, p->event_offset, "id", 0);
        p->id_cur = !p->id_cur;
        break;
    case F_RETRY:
        if (p->retry_ok && p->retry_digits)
            p->retry = p->retry_event = (int64_t)p->retry_acc;
        break;
    default:
        break;
    }
    return APS_OK;
}

/* A blank line: dispatch the event, if it has data (the spec's rule). */
static aps_status dispatch(aps_sse_parser *p)
{
    aps_sse_event ev;
    size_t bad;
    aps_status st = APS_OK;
    /* Step 1 of the spec's dispatch, done even when nothing is dispatched. */
    p->last_id_len = p->id_len[p->id_cur];
    copy_short(p->last_id, p->ids[p->id_cur], p->last_id_len);
    if (p->dropping)
        p->retry_event = -1;
    if (p->dropping || p->data_lines == 0) {
        clear_event(p);
        return APS_OK;
    }
    bad = p->opts.skip_utf8_check || !p->data_unproven
              ? SIZE_MAX
              : aps_utf8_check((const uint8_t *)(p->borrowed != NULL ? p->borrowed : p->data),
                               p->data_len);
    if (bad != SIZE_MAX) {
        st = report(p, APS_E_UTF8,
                    p->data_lines == 1 ? p->data_offset + bad : p->data_offset, "data", 0);
    } else if (p->on_event != NULL) {
        ev.type = p->type_len > 0 ? p->type : "message";
        ev.type_len = p->type_len > 0 ? p->type_len : 7;
        ev.data = p->borrowed != NULL ? p->borrowed : p->data_len > 0 ? p->data : "";
        ev.data_len = p->data_len;
        ev.last_id = p->last_id;
        ev.last_id_len = p->last_id_len;
        ev.retry = p->retry_event;
        ev.offset = p->event_offset;
        ev.data_offset = p->data_offset;
        st = p->on_event(p->user, &ev);
    }
    clear_event(p);
    p->retry_event = -1;
    return st;
}

/*
 * Consumes s[0..len), a piece of one line without its line end, starting at
 * stream offset `offset`; `proven`: the piece is well-formed UTF-8. A known
 * field's name is ASCII, so then its value, which follows it, is too.
 */
static aps_status line_piece(aps_sse_parser *p, const char *s, size_t len, uint64_t offset,
                             int proven)
{
    size_t take;
    while (len > 0) {
        switch (p->state) {
        case LINE_START:
            if (s[0] == ':' && p->on_comment != NULL) {
                p->state = COMMENT;
                p->comment_len = 0;
                p->comment_offset = offset;
                s++;
                len--;
                break;
            }
            if (s[0] == ':' || p->dropping) {
                p->state = SKIP;
                return APS_OK;
            }
            if (!p->event_started) {
                p->event_started = 1;
                p->event_offset = offset;
            }
            p->state = NAME;
            p->name_len = 0;
            break;
        case NAME: {
            /* Only the first bytes can make a known name: look no further. */
            size_t window = KNOWN_NAME_MAX + 1 - p->name_len, n = 0;
            const char *colon = NULL;
            aps_status st;
            /* a few bytes: a loop, not a call */
            for (window = len < window ? len : window; n < window; n++) {
                if (s[n] == ':') {
                    colon = s + n;
                    break;
                }
            }
            n = colon != NULL ? n : len;
            if (colon == NULL && p->name_len + len > KNOWN_NAME_MAX) {
                p->state = SKIP;
                return APS_OK;
            }
            memcpy(p->name + p->name_len, s, n);
            p->name_len += n;
            if (colon == NULL)
                return APS_OK;
            st = begin_field(p, field_of(p->name, p->name_len), offset + n + 1);
            if (st != APS_OK)
                return st;
            s += n + 1;
            len -= n + 1;
            offset += n + 1;
            break;
        }
        case VALUE_START:
            p->state = VALUE;
            if (s[0] == ' ') {
                s++;
                len--;
                offset++;
                if (p->field == F_DATA && p->data_lines == 1)
                    p->data_offset = offset;
            }
            break;
        case VALUE:
            return append_value(p, s, len, offset, proven);
        case COMMENT:
            /* its first APS_SSE_NAME_MAX bytes */
            take = len < APS_SSE_NAME_MAX - p->comment_len ? len : APS_SSE_NAME_MAX - p->comment_len;
            memcpy(p->comment + p->comment_len, s, take);
            p->comment_len += take;
            return APS_OK;
        default: /* SKIP */
            return APS_OK;
        }
    }
    return APS_OK;
}

/* Whether s[0..len) holds a NUL: in words or halves, overlapping at the
 * end, and one test at the end below four bytes (ids are short). */
static int has_nul(const char *s, size_t len)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t w, zero = 0;
    size_t i;
    uint32_t a, b;
    int nul = 0;
    if (len >= 4 && len < 8) {
        memcpy(&a, s, 4);
        memcpy(&b, s + len - 4, 4);
        return (((a - 0x01010101u) & ~a) | ((b - 0x01010101u) & ~b)) & 0x80808080u ? 1 : 0;
    }
    if (len >= 8) {
        /* (w - ones) & ~w & highs is non-zero exactly when a byte of w is 0 */
        for (i = 0; i + 8 <= len; i += 8) {
            memcpy(&w, s + i, 8);
            zero |= (w - ones) & ~w & highs;
        }
        memcpy(&w, s + len - 8, 8);
        zero |= (w - ones) & ~w & highs;
        return zero != 0;
    }
    for (i = 0; i < len; i++)
        nul |= s[i] == '\0';
    return nul;
}

/*
 * The field of a whole line s[0..len) (len > 0) and its name's length *n:
 * past KNOWN_NAME_MAX for a name too long to be a field, len when the line
 * has no colon. The known names are told by their first byte: a loop that
 * looks for the colon ends at a different length on each line of an event,
 * and the branch that ends it is mispredicted about every time.
 */
static int line_field(const char *s, size_t len, size_t *n)
{
    size_t i;
    switch (s[0]) {
    case 'd':
        if (len >= 5 && memcmp(s, "data:", 5) == 0) {
            *n = 4;
            return F_DATA;
        }
        break;
    case 'e':
        if (len >= 6 && memcmp(s, "event:", 6) == 0) {
            *n = 5;
            return F_EVENT;
        }
        break;
    case 'i':
        if (len >= 3 && s[1] == 'd' && s[2] == ':') {
            *n = 2;
            return F_ID;
        }
        break;
    default:
        break;
    }
    for (i = 0; i < len && i <= KNOWN_NAME_MAX && s[i] != ':'; i++)
        ;
    *n = i;
    return field_of(s, i);
}

/*
 * A whole line s[0..len) at stream offset `offset`, from LINE_START: what
 * line_piece and line_end do for it, without the states that only a line
 * split over pushes needs (the usual line arrives whole). The state is
 * LINE_START again after it.
 */
static aps_status whole_line(aps_sse_parser *p, const char *s, size_t len, uint64_t offset,
                             int proven)
{
    size_t n, v;
    int field;
    aps_status st;
    if (len == 0)
        return dispatch(p);
    if (s[0] == ':') /* a comment: its first APS_SSE_NAME_MAX bytes, when asked for */
        return p->on_comment != NULL
                   ? p->on_comment(p->user, s + 1, len - 1 < APS_SSE_NAME_MAX ? len - 1 : APS_SSE_NAME_MAX, offset)
                   : APS_OK;
    if (p->dropping)
        return APS_OK;
    if (!p->event_started) {
        p->event_started = 1;
        p->event_offset = offset;
    }
    field = line_field(s, len, &n);
    /* The usual line: an event's only data line, borrowed where it lies. */
    if (field == F_DATA && n < len && p->data_lines == 0) {
        v = 5 + (len > 5 && s[5] == ' ');
        p->field = F_DATA;
        p->data_lines = 1;
        p->data_offset = offset + v;
        if (len - v > p->data_cap) {
            st = drop(p, APS_E_LIMIT, offset + v + p->data_cap, "data", p->data_cap);
            p->state = LINE_START;
            return st;
        }
        p->borrowed = len > v ? s + v : NULL;
        p->data_len = len - v;
        p->data_unproven = !proven && len > v;
        return APS_OK;
    }
    if (n > KNOWN_NAME_MAX)
        return APS_OK; /* a longer name is no field we know */
    if ((field == F_EVENT || field == F_ID) && n < len && (proven || p->opts.skip_utf8_check)) {
        /* The usual event and id lines: what begin_field, append_value and
         * end_field do with a short value that needs no UTF-8 check. */
        v = n + 1 + (n + 1 < len && s[n + 1] == ' ');
        if (len - v <= APS_SSE_NAME_MAX) {
            if (field == F_EVENT) {
                copy_short(p->type, s + v, len - v);
                p->type_len = len - v;
            } else if (!has_nul(s + v, len - v)) { /* an id with NUL is ignored */
                copy_short(p->ids[!p->id_cur], s + v, len - v);
                p->id_len[!p->id_cur] = len - v;
                p->id_cur = !p->id_cur;
            }
            return APS_OK;
        }
    }
    /* No colon: the whole line is the name, the value is empty. */
    v = n < len ? n + 1 : len;
    st = begin_field(p, field, offset + v);
    if (st != APS_OK || p->state == SKIP) {
        p->state = LINE_START;
        return st;
    }
    if (v < len && s[v] == ' ') {
        v++;
        if (p->field == F_DATA && p->data_lines == 1)
            p->data_offset = offset + v;
    }
    st = append_value(p, s + v, len - v, offset + v, proven);
    if (st == APS_OK && p->state != SKIP)
        st = end_field(p);
    p->state = LINE_START;
    return st;
}

/* The current line ended at stream offset `offset`. */
static aps_status line_end(aps_sse_parser *p, uint64_t offset)
{
    aps_status st = APS_OK;
    switch (p->state) {
    case LINE_START:
        st = dispatch(p);
        break;
    case NAME: /* no colon: the whole line is the name, the value is empty */
        st = begin_field(p, field_of(p->name, p->name_len), offset);
        if (st == APS_OK && p->state != SKIP)
            st = end_field(p);
        break;
    case VALUE_START:
    case VALUE:
        st = end_field(p);
        break;
    case COMMENT:
        st = p->on_comment(p->user, p->comment, p->comment_len, p->comment_offset);
        break;
    default:
        break;
    }
    p->state = LINE_START;
    return st;
}

static aps_status feed(aps_sse_parser *p, const char *s, size_t n)
{
    size_t i = 0;
    int proven;
    aps_status st = APS_OK;
    aps_lines lines;
    aps_lines_init(&lines, s, n, !p->opts.skip_utf8_check);
    if (p->cr_pending && n > 0) {
        /* CR ended the previous push's last line (only a push's last byte
         * sets this): an LF now completes it. */
        p->cr_pending = 0;
        i = s[0] == '\n';
    }
    while (i < n && st == APS_OK) {
        size_t eol = aps_lines_next(&lines, i, &proven);
        if (eol < n && p->state == LINE_START) {
            st = whole_line(p, s + i, eol - i, p->offset + i, proven);
        } else {
            st = line_piece(p, s + i, eol - i, p->offset + i, proven);
            if (st != APS_OK || eol == n) {
                i = eol;
                break;
            }
            st = line_end(p, p->offset + eol);
        }
        if (s[eol] == '\r') {
            if (eol + 1 == n)
                p->cr_pending = 1;
            else if (s[eol + 1] == '\n')
                eol++;
        }
        i = eol + 1;
    }
    p->offset += n;
    return st;
}

aps_status aps_sse_parser_push(aps_sse_parser *p, const void *bytes, size_t len,
                               aps_error *err)
{
    const char *s = bytes;
    aps_status st = APS_OK;
    if (p->failed)
        return aps_error_set(err, APS_E_STATE, (size_t)p->offset,
                             "SSE parser was stopped by a callback");
    if (p->bom_matched >= 0) {
        /* One leading BOM is stripped; it may arrive split over pushes, and
         * the bytes of a partial match are content after all. */
        while (len > 0 && p->bom_matched < 3 && (char)*s == bom[p->bom_matched]) {
            p->bom_matched++;
            s++;
            len--;
        }
        if (p->bom_matched == 3) {
            p->offset = 3;
            p->bom_matched = -1;
        } else if (len > 0) {
            int k = p->bom_matched;
            p->bom_matched = -1;
            st = feed(p, bom, (size_t)k);
        }
    }
    if (st == APS_OK && len > 0)
        st = feed(p, s, len);
    own_data(p);
    if (st != APS_OK) {
        p->failed = 1;
        return aps_error_set(err, st, (size_t)p->offset,
                             "SSE parsing stopped by a callback: %s", aps_status_str(st));
    }
    return APS_OK;
}

aps_status aps_sse_parser_finish(aps_sse_parser *p, aps_error *err)
{
    if (p->failed)
        return aps_error_set(err, APS_E_STATE, (size_t)p->offset,
                             "SSE parser was stopped by a callback");
    /* The spec: at end of stream, an event not ended by a blank line is
     * discarded. */
    clear_event(p);
    p->state = LINE_START;
    p->cr_pending = 0;
    if (p->bom_matched > 0)
        p->bom_matched = -1;
    return APS_OK;
}

int aps_sse_parser_pending(const aps_sse_parser *p)
{
    return p->state != LINE_START || p->event_started || p->bom_matched > 0;
}

const char *aps_sse_parser_last_id(const aps_sse_parser *p, size_t *len)
{
    if (len != NULL)
        *len = p->last_id_len;
    return p->last_id;
}

int64_t aps_sse_parser_retry(const aps_sse_parser *p)
{
    return p->retry;
}
