/*
 * ap_server_records.c - how a thread's log keeps an event, and how the
 * event is sent from it (ap_server.h).
 *
 * The log keeps an event as "event: METHOD\ndata: {MEMBERS\n\n": its SSE
 * record without the `id:` line, and its JSON without `eventId` and `seq`.
 * Only the log knows an event's seq for sure (a shared log numbers the
 * appends of every replica as it makes them), so those are written as each
 * event is sent (server_event_put), from the seq the log gives and the
 * eventId kept in its index (an eventId of the product's own) or, without
 * one, the seq in decimal; and a resume after such a stamped eventId is a
 * resume after that seq (server_resume_point), as a resume of a thread
 * that has no event yet is one from its start.
 */
#include "server_internal.h"

#include <string.h>

/* Where the JSON of a record of the log starts ('{'), 0 when it is not one of the server's. */
size_t server_record_json(const uint8_t *p, size_t n)
{
    const uint8_t *nl = n > 7 ? memchr(p, '\n', n) : NULL;
    size_t at;
    if (nl == NULL || memcmp(p, "event: ", 7) != 0)
        return 0;
    at = (size_t)(nl - p) + 7;
    if (at + 3 > n || memcmp(nl, "\ndata: {", 8) != 0 || p[n - 2] != '\n' || p[n - 1] != '\n')
        return 0;
    return at;
}

/* Whether id[0..len) is a seq as the server writes one: decimal, no leading zero, in range. */
static int seq_of_text(aps_slice id, uint64_t *seq)
{
    uint64_t v = 0;
    size_t i;
    if (id.len == 0 || id.len > 20 || (id.ptr[0] == '0' && id.len > 1))
        return 0;
    for (i = 0; i < id.len; i++) {
        unsigned d = (unsigned)(id.ptr[i] - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *seq = v;
    return v != 0;
}

static int has_own_id(void *ctx, const aps_replay_event *ev)
{
    *(int *)ctx = ev->event_id.ptr != NULL;
    return 0;
}

/*
 * A resume on a thread whose log has never held an event has missed
 * nothing: every event the thread will have is still to come, so it starts
 * from the beginning without the miss the log gives an unknown point (a
 * "missed 0 events" that would only send the client to resync from a state
 * there is not). An event appended meanwhile is seq 1: delivered.
 */
static int never_appended(srv_thread *t)
{
    aps_replay_stats stats;
    return aps_replay_store_stats_get(t->log, &stats, NULL) == APS_OK && stats.last_seq == 0;
}

void server_resume_point(srv_thread *t, aps_replay_start *start)
{
    uint64_t seq;
    int own = 1;
    if ((start->from == APS_REPLAY_FROM_EVENT_ID || start->from == APS_REPLAY_FROM_SEQ) && never_appended(t)) {
        start->from = APS_REPLAY_FROM_SEQ;
        start->seq = 0;
        return;
    }
    if (start->from != APS_REPLAY_FROM_EVENT_ID ||
        aps_replay_store_find_event_id(t->log, start->event_id, &seq, NULL) == APS_OK ||
        !seq_of_text(start->event_id, &seq))
        return; /* (an id of the product's, or none the log knows: the log reports the unknown point) */
    if (aps_replay_store_get(t->log, seq, has_own_id, &own, NULL) == APS_OK && !own) {
        start->from = APS_REPLAY_FROM_SEQ;
        start->seq = seq;
    }
}

/* `v` in decimal at `out` (at most 20 bytes); the end. Per event sent: printf's cost showed in profiles. */
static char *put_decimal(char *out, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        *out++ = digits[--n];
    return out;
}

/* The eventId an event is sent with: its own, or the seq in decimal (into `buf`, 24 bytes). */
static aps_slice sent_event_id(const aps_replay_event *ev, char *buf)
{
    aps_slice id = ev->event_id;
    if (id.ptr == NULL) {
        id.ptr = buf;
        id.len = (size_t)(put_decimal(buf, ev->seq) - buf);
    }
    return id;
}

size_t server_event_size(const aps_replay_event *ev)
{
    /* the id line, and the members: an eventId escaped as \u00XX at worst, a seq of 20 digits */
    size_t id = ev->event_id.ptr != NULL ? ev->event_id.len : 20;
    return ev->len + 7 * id + 64;
}

static char *put(char *out, const void *p, size_t n)
{
    memcpy(out, p, n);
    return out + n;
}

size_t server_event_put(char *out, const aps_replay_event *ev, int sse, aps_key_case kc)
{
    static const char hex[] = "0123456789abcdef";
    const char *rec = (const char *)ev->bytes;
    size_t at = server_record_json(ev->bytes, ev->len), i;
    char buf[24], *p = out;
    aps_slice id;
    if (at == 0)
        return 0;
    id = sent_event_id(ev, buf);
    if (sse) {
        p = put(p, "id: ", 4);
        p = put(p, id.ptr, id.len);
        p = put(p, "\n", 1);
        p = put(p, rec, at + 1); /* "event: ...\ndata: {" */
    } else {
        p = put(p, "{", 1);
    }
    p = kc == APS_CASE_SCHEMA ? put(p, "\"eventId\":\"", 11) : put(p, "\"event_id\":\"", 12);
    for (i = 0; i < id.len; i++) {
        unsigned char c = (unsigned char)id.ptr[i];
        if (c == '"' || c == '\\') {
            *p++ = '\\';
            *p++ = (char)c;
        } else if (c < 0x20) {
            p = put(p, "\\u00", 4);
            *p++ = hex[c >> 4];
            *p++ = hex[c & 15];
        } else {
            *p++ = (char)c;
        }
    }
    p = put(p, "\",\"seq\":", 8);
    p = put_decimal(p, ev->seq);
    *p++ = ',';
    /* the members after '{', with the record's blank line for SSE, without for the JSON alone */
    p = put(p, rec + at + 1, ev->len - at - 1 - (sse ? 0 : 2));
    return (size_t)(p - out);
}
