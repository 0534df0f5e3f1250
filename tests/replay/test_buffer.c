/* test_buffer.c - the replay buffer: seqs, eviction, lookups, resume points,
 * misses, cursors and the values baseline. */
#include "../test.h"
#include "test_util.h"

#include "backend.h"

#include <stdint.h>
#include <stdlib.h>

static aps_slice S(const char *s)
{
    aps_slice r;
    r.ptr = s;
    r.len = s != NULL ? strlen(s) : 0;
    return r;
}

/* Appends `body` on `channel` in namespace `ns0`/`ns1` (NULL: fewer segments). */
static uint64_t put(aps_replay_store *rb, aps_channel channel, const char *id, const char *name,
                    const char *ns0, const char *ns1, const char *body)
{
    aps_replay_meta m;
    aps_slice seg[2];
    uint64_t seq = 0;
    aps_status st;
    memset(&m, 0, sizeof m);
    m.channel = channel;
    m.event_id = S(id);
    m.custom_name = S(name);
    seg[0] = S(ns0);
    seg[1] = S(ns1);
    m.ns.items = seg;
    m.ns.count = ns0 == NULL ? 0 : ns1 == NULL ? 1 : 2;
    st = aps_replay_store_append(rb, body, strlen(body), &m, &seq, NULL);
    CHECK_INT(st, APS_OK);
    return seq;
}

static uint64_t put_plain(aps_replay_store *rb, const char *body)
{
    return put(rb, APS_CHANNEL_MESSAGES, NULL, NULL, NULL, NULL, body);
}

/* What a reader saw. */
typedef struct seen {
    uint64_t seq[256];
    int baseline[256];
    char body[256][32];
    size_t n;
    size_t refuse_at; /* refuse the event when n reaches this (0: never) */
} seen;

static int collect(void *ctx, const aps_replay_event *ev)
{
    seen *s = (seen *)ctx;
    size_t len = ev->len < 31 ? ev->len : 31;
    if (s->refuse_at != 0 && s->n == s->refuse_at)
        return 1;
    if (s->n < 256) {
        s->seq[s->n] = ev->seq;
        s->baseline[s->n] = ev->baseline;
        memcpy(s->body[s->n], ev->bytes, len);
        s->body[s->n][len] = '\0';
    }
    s->n++;
    return 0;
}

/* Reads until caught up; returns how many misses were reported, the last in *gap. */
static int drain(aps_replay_store *rb, aps_replay_cursor *cur, seen *s, aps_replay_gap *gap)
{
    int misses = 0;
    for (;;) {
        size_t n = 0;
        aps_status st = aps_replay_store_read(rb, cur, 3, collect, s, &n, gap, NULL);
        if (st == APS_E_MISSED) {
            misses++;
            CHECK_INT(n, 0);
            continue;
        }
        CHECK_INT(st, APS_OK);
        if (n == 0)
            return misses;
    }
}

static aps_replay_start from_seq(uint64_t seq)
{
    aps_replay_start s;
    memset(&s, 0, sizeof s);
    s.from = APS_REPLAY_FROM_SEQ;
    s.seq = seq;
    return s;
}

static aps_replay_start from_id(const char *id)
{
    aps_replay_start s;
    memset(&s, 0, sizeof s);
    s.from = APS_REPLAY_FROM_EVENT_ID;
    s.event_id = S(id);
    return s;
}

static aps_replay_store *init_caps(size_t events, size_t bytes)
{
    aps_replay_options o;
    memset(&o, 0, sizeof o);
    o.max_events = events;
    o.max_bytes = bytes;
    return backend_open(&o);
}

static void check_seqs(const seen *s, const uint64_t *want, size_t n)
{
    size_t i;
    CHECK_INT(s->n, n);
    for (i = 0; i < n && i < s->n; i++)
        CHECK_INT(s->seq[i], want[i]);
}

static void test_seq_and_get(void)
{
    aps_replay_store *rb;
    aps_replay_stats st;
    seen s;
    memset(&s, 0, sizeof s);
    rb = backend_open(NULL);
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.last_seq, 0);
    CHECK_INT(st.oldest_seq, 1);
    CHECK_INT(st.events, 0);
    CHECK_INT(st.bytes, 0);
    CHECK_INT((backend_last_seq(rb) + 1), 1);
    CHECK_INT(put_plain(rb, "one"), 1);
    CHECK_INT((backend_last_seq(rb) + 1), 2);
    CHECK_INT(put(rb, APS_CHANNEL_CUSTOM, "e2", "prog", "a", "b", "two"), 2);
    CHECK_INT(backend_last_seq(rb), 2);

    CHECK_INT(aps_replay_store_get(rb, 2, collect, &s, NULL), APS_OK);
    CHECK_INT(s.n, 1);
    CHECK_STR(s.body[0], "two");
    CHECK_INT(aps_replay_store_get(rb, 0, collect, &s, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_replay_store_get(rb, 3, collect, &s, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_replay_store_get(rb, 1, NULL, &s, NULL), APS_E_ARGUMENT);
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.events, 2);
    /* "one": 3 bytes -> 8; "two": 2 ends (8) + "ab" + "prog" + "e2" + 3 = 19 -> 24. */
    if (backend_memory())
        CHECK_INT(st.bytes, 32);
    aps_replay_store_close(rb);
    aps_replay_store_close(NULL);
    aps_replay_deinit(NULL);
}

typedef struct meta_seen {
    aps_replay_event ev;
    char copy[128];
} meta_seen;

static int grab_meta(void *ctx, const aps_replay_event *ev)
{
    meta_seen *m = (meta_seen *)ctx;
    size_t off = 0, i;
    m->ev = *ev;
    /* Flatten the metadata while the pointers are valid. */
    off += (size_t)snprintf(m->copy, sizeof m->copy, "%s|%.*s|%.*s|",
                            aps_channel_name(ev->channel), (int)ev->custom_name.len,
                            ev->custom_name.ptr ? ev->custom_name.ptr : "",
                            (int)ev->event_id.len, ev->event_id.ptr ? ev->event_id.ptr : "");
    for (i = 0; i < ev->ns.count; i++) {
        uint32_t start = i ? ev->ns.ends[i - 1] : 0;
        off += (size_t)snprintf(m->copy + off, sizeof m->copy - off, "/%.*s",
                                (int)(ev->ns.ends[i] - start), ev->ns.bytes + start);
    }
    snprintf(m->copy + off, sizeof m->copy - off, "|%.*s", (int)ev->len, (const char *)ev->bytes);
    return 0;
}

static void test_metadata(void)
{
    aps_replay_store *rb;
    meta_seen m;
    rb = backend_open(NULL);
    put(rb, APS_CHANNEL_CUSTOM, "id-1", "progress", "sup", "w:1", "{\"x\":1}");
    put(rb, APS_CHANNEL_UPDATES, NULL, "ignored", NULL, NULL, "");
    put(rb, APS_CHANNEL_INPUT, "", NULL, "", NULL, "i");
    CHECK_INT(aps_replay_store_get(rb, 1, grab_meta, &m, NULL), APS_OK);
    CHECK_STR(m.copy, "custom|progress|id-1|/sup/w:1|{\"x\":1}");
    CHECK_INT(aps_replay_store_get(rb, 2, grab_meta, &m, NULL), APS_OK);
    /* A custom name on a non-custom event is not kept; no eventId: NULL. */
    CHECK_STR(m.copy, "updates||||");
    CHECK(m.ev.event_id.ptr == NULL);
    CHECK(m.ev.custom_name.ptr == NULL);
    CHECK_INT(m.ev.ns.count, 0);
    CHECK_INT(aps_replay_store_get(rb, 3, grab_meta, &m, NULL), APS_OK);
    /* An empty eventId is an eventId; an empty segment is a segment. */
    CHECK(m.ev.event_id.ptr != NULL);
    CHECK_INT(m.ev.ns.count, 1);
    CHECK_STR(m.copy, "input|||/|i");
    aps_replay_store_close(rb);
}

static void test_evict_by_events(void)
{
    aps_replay_store *rb;
    aps_replay_stats st;
    seen s;
    int i;
    char body[8];
    rb = init_caps(4, 4096);
    for (i = 1; i <= 10; i++) {
        snprintf(body, sizeof body, "e%d", i);
        CHECK_INT(put_plain(rb, body), (uint64_t)i);
    }
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.oldest_seq, 7);
    CHECK_INT(st.last_seq, 10);
    CHECK_INT(st.events, 4);
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_get(rb, 6, collect, &s, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_replay_store_get(rb, 7, collect, &s, NULL), APS_OK);
    CHECK_STR(s.body[0], "e7");
    aps_replay_store_close(rb);
}

static void test_evict_by_bytes(void)
{
    aps_replay_store *rb;
    aps_replay_stats st;
    char big[101], huge[300];
    aps_replay_meta m;
    uint64_t seq = 77;
    aps_error err = APS_ERROR_INIT;
    memset(big, 'b', 100);
    big[100] = '\0';
    memset(huge, 'h', sizeof huge);
    rb = init_caps(100, 256);
    /* 100-byte events take 104-byte records: [0,104) [104,208). */
    CHECK_INT(put_plain(rb, big), 1);
    CHECK_INT(put_plain(rb, big), 2);
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.events, 2);
    CHECK_INT(st.bytes, 208);
    /* No room at the end (208 + 104 > 256): evict 1, wrap to 0. */
    CHECK_INT(put_plain(rb, big), 3);
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.oldest_seq, 2);
    CHECK_INT(st.events, 2);
    CHECK_INT(st.bytes, 256 - 0); /* [104,208) + skipped [208,256) + [0,104) */
    /* Next record needs [104,208) which 2 holds: evict 2. */
    CHECK_INT(put_plain(rb, big), 4);
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.oldest_seq, 3);
    CHECK_INT(st.bytes, 208);
    /* Small events fill the tail without evicting. */
    CHECK_INT(put_plain(rb, "abcdefgh"), 5);
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.oldest_seq, 3);
    CHECK_INT(st.bytes, 216);

    /* A record bigger than the ring: APS_E_LIMIT, nothing evicted, no seq used. */
    memset(&m, 0, sizeof m);
    m.channel = APS_CHANNEL_MESSAGES;
    CHECK_INT(aps_replay_store_append(rb, huge, sizeof huge, &m, &seq, &err), APS_E_LIMIT);
    CHECK_INT(err.code, APS_E_LIMIT);
    CHECK(strstr(err.message, "exceeds the replay capacity") != NULL);
    CHECK_INT(seq, 77);
    /* Exactly the ring size fits, evicting everything. */
    CHECK_INT(aps_replay_store_append(rb, huge, 256, &m, &seq, NULL), APS_OK);
    CHECK_INT(seq, 6);
    /* 252 bytes + the metadata of a 1-segment namespace would be 260: too big. */
    {
        aps_slice seg = { "ab", 2 };
        m.ns.items = &seg;
        m.ns.count = 1;
        CHECK_INT(aps_replay_store_append(rb, huge, 252, &m, &seq, NULL), APS_E_LIMIT);
    }
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.oldest_seq, 6);
    CHECK_INT(st.last_seq, 6);
    CHECK_INT(st.bytes, 256);
    CHECK_INT((backend_last_seq(rb) + 1), 7);
    aps_replay_store_close(rb);
}

/* Empty events still take 8 bytes: the regression the property test found
 * (two records at one offset made a wrapped ring look unwrapped, and the
 * next record overwrote live ones). Bodies are 40 copies of a letter that
 * depends on the seq, or empty, so any overlap shows. */
static void test_empty_events(void)
{
    aps_replay_store *rb;
    aps_replay_stats st;
    seen s;
    char body[41];
    uint64_t seq;
    int i;
    const char *pattern = "EEFEFFEFE"; /* F: full 40-byte body, E: empty */
    rb = init_caps(100, 128);
    for (i = 1; i <= 3; i++) {
        memset(body, 'a' + i, 40);
        body[40] = '\0';
        put_plain(rb, body);
    }
    for (i = 0; pattern[i] != '\0'; i++) {
        seq = (backend_last_seq(rb) + 1);
        memset(body, 'a' + (int)(seq % 26), 40);
        body[pattern[i] == 'F' ? 40 : 0] = '\0';
        put_plain(rb, body);
        CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
        CHECK(st.bytes <= 128);
        memset(&s, 0, sizeof s);
        for (seq = st.oldest_seq; seq <= st.last_seq; seq++) {
            CHECK_INT(aps_replay_store_get(rb, seq, collect, &s, NULL), APS_OK);
            if (s.n > 0 && s.body[s.n - 1][0] != '\0') {
                char want[32];
                memset(want, 'a' + (int)(seq % 26), 31);
                want[31] = '\0';
                CHECK_STR(s.body[s.n - 1], want);
            }
        }
    }
    aps_replay_store_close(rb);
}

static void test_event_id_index(void)
{
    aps_replay_store *rb;
    uint64_t seq = 0;
    char id[16];
    int i;
    rb = init_caps(8, 1 << 16);
    put(rb, APS_CHANNEL_MESSAGES, "a", NULL, NULL, NULL, "1");
    put(rb, APS_CHANNEL_MESSAGES, "b", NULL, NULL, NULL, "2");
    put(rb, APS_CHANNEL_MESSAGES, "a", NULL, NULL, NULL, "3"); /* duplicate */
    put(rb, APS_CHANNEL_MESSAGES, NULL, NULL, NULL, NULL, "4");
    CHECK_INT(aps_replay_store_find_event_id(rb, S("b"), &seq, NULL), APS_OK);
    CHECK_INT(seq, 2);
    /* Duplicates: the oldest buffered occurrence. */
    CHECK_INT(aps_replay_store_find_event_id(rb, S("a"), &seq, NULL), APS_OK);
    CHECK_INT(seq, 1);
    CHECK_INT(aps_replay_store_find_event_id(rb, S("c"), &seq, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_replay_store_find_event_id(rb, S(""), &seq, NULL), APS_E_NOT_FOUND);
    /* Evict 1: the next "a" takes over; evict 2: "b" is gone. */
    for (i = 0; i < 6; i++) {
        snprintf(id, sizeof id, "x%d", i);
        put(rb, APS_CHANNEL_MESSAGES, id, NULL, NULL, NULL, "f");
    }
    CHECK_INT(aps_replay_store_find_event_id(rb, S("a"), &seq, NULL), APS_OK);
    CHECK_INT(seq, 3);
    CHECK_INT(aps_replay_store_find_event_id(rb, S("b"), &seq, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_replay_store_find_event_id(rb, S("x5"), &seq, NULL), APS_OK);
    CHECK_INT(seq, 10);
    /* Churn through many evictions: the index never holds a stale entry. */
    for (i = 0; i < 5000; i++) {
        snprintf(id, sizeof id, "k%d", i % 37);
        put(rb, APS_CHANNEL_MESSAGES, id, NULL, NULL, NULL, "g");
    }
    CHECK_INT(aps_replay_store_find_event_id(rb, S("a"), &seq, NULL), APS_E_NOT_FOUND);
    /* The last 8 carry k(4992 % 37 ..) = k34, k35, k36, k0, k1, k2, k3, k4. */
    CHECK_INT(aps_replay_store_find_event_id(rb, S("k34"), &seq, NULL), APS_OK);
    CHECK_INT(seq, backend_last_seq(rb) - 7);
    CHECK_INT(aps_replay_store_find_event_id(rb, S("k4"), &seq, NULL), APS_OK);
    CHECK_INT(seq, backend_last_seq(rb));
    CHECK_INT(aps_replay_store_find_event_id(rb, S("k33"), &seq, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_replay_store_find_event_id(rb, S("k5"), &seq, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_replay_store_find_event_id(NULL, S("a"), &seq, NULL), APS_E_ARGUMENT);
    aps_replay_store_close(rb);
}

static void test_since(void)
{
    aps_replay_store *rb;
    aps_replay_cursor cur;
    aps_replay_start start;
    aps_replay_gap gap;
    seen s;
    char id[8];
    int i;
    static const uint64_t all[] = { 1, 2, 3, 4, 5 };
    static const uint64_t tail[] = { 7, 8, 9, 10 };
    rb = init_caps(4, 1 << 16);
    for (i = 1; i <= 5; i++) {
        snprintf(id, sizeof id, "id%d", i);
        put(rb, APS_CHANNEL_MESSAGES, id, NULL, NULL, NULL, "x");
    }
    /* 5 appended, capacity 4: seq 1 evicted, buffer holds 2..5. */

    /* since 0: wants 1..; 1 is evicted: miss of exactly 1. */
    memset(&s, 0, sizeof s);
    start = from_seq(0);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 1);
    CHECK_INT(gap.lost, 1);
    CHECK_INT(gap.oldest_seq, 2);
    check_seqs(&s, all + 1, 4);

    /* since 1: nothing lost. */
    memset(&s, 0, sizeof s);
    start = from_seq(1);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, all + 1, 4);

    /* since 3: 4, 5. since 5 (the last): nothing, no miss. */
    memset(&s, 0, sizeof s);
    start = from_seq(3);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, all + 3, 2);
    memset(&s, 0, sizeof s);
    start = from_seq(5);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    CHECK_INT(s.n, 0);

    /* since a future seq: position unknown -> miss of all evicted, all buffered. */
    memset(&s, 0, sizeof s);
    start = from_seq(6);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 1);
    CHECK_INT(gap.lost, 1);
    CHECK_INT(gap.oldest_seq, 2);
    check_seqs(&s, all + 1, 4);

    /* sinceEventId: present, evicted, never seen. */
    memset(&s, 0, sizeof s);
    start = from_id("id3");
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, all + 3, 2);
    memset(&s, 0, sizeof s);
    start = from_id("id1");
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 1);
    CHECK_INT(gap.lost, 1);
    check_seqs(&s, all + 1, 4);
    memset(&s, 0, sizeof s);
    start = from_id("nope");
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 1);
    CHECK_INT(gap.lost, 1);
    check_seqs(&s, all + 1, 4);

    /* The miss is measured when the reader reads, not when it subscribed:
     * since 4, then 5 more appends evict 2..6. */
    memset(&s, 0, sizeof s);
    start = from_seq(4);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    for (i = 6; i <= 10; i++)
        put_plain(rb, "y");
    CHECK_INT(drain(rb, &cur, &s, &gap), 1);
    CHECK_INT(gap.lost, 2); /* 5 and 6 */
    CHECK_INT(gap.oldest_seq, 7);
    check_seqs(&s, tail, 4);

    CHECK_INT(aps_replay_store_cursor_init(rb, NULL, NULL, &start, NULL), APS_E_ARGUMENT);
    start.from = (aps_replay_from)42;
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_E_ARGUMENT);
    CHECK_INT(aps_replay_store_read(rb, &cur, 1, NULL, NULL, NULL, NULL, NULL), APS_E_ARGUMENT);
    aps_replay_store_close(rb);
}

/* Nothing evicted yet: since 0 is no miss, an unknown eventId still is. */
static void test_no_eviction(void)
{
    aps_replay_store *rb;
    aps_replay_cursor cur;
    aps_replay_start start;
    aps_replay_gap gap;
    seen s;
    static const uint64_t all[] = { 1, 2 };
    rb = init_caps(4, 1 << 16);
    memset(&s, 0, sizeof s);
    start = from_seq(0);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0); /* empty buffer, since 0 */
    put_plain(rb, "a");
    put_plain(rb, "b");
    CHECK_INT(drain(rb, &cur, &s, &gap), 0); /* then live */
    check_seqs(&s, all, 2);

    memset(&s, 0, sizeof s);
    start = from_seq(0);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, all, 2);

    memset(&s, 0, sizeof s);
    start = from_id("unknown");
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 1);
    CHECK_INT(gap.lost, 0);
    CHECK_INT(gap.oldest_seq, 1);
    check_seqs(&s, all, 2);
    aps_replay_store_close(rb);
}

static void test_live_cursor(void)
{
    aps_replay_store *rb;
    aps_replay_cursor cur;
    aps_replay_gap gap;
    aps_replay_start oldest;
    seen s;
    size_t n;
    int i;
    static const uint64_t live[] = { 3, 4 };
    static const uint64_t after[] = { 12, 13, 14, 15 };
    rb = init_caps(4, 1 << 16);
    put_plain(rb, "old1");
    put_plain(rb, "old2");
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, NULL, NULL), APS_OK); /* FROM_NOW */
    CHECK_INT(aps_replay_store_read(rb, &cur, 10, collect, &s, &n, &gap, NULL), APS_OK);
    CHECK_INT(n, 0);
    put_plain(rb, "new3");
    put_plain(rb, "new4");
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, live, 2);

    /* The reader falls behind by more than the ring: told exactly how much. */
    for (i = 5; i <= 15; i++)
        put_plain(rb, "z");
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_read(rb, &cur, 10, collect, &s, &n, &gap, NULL), APS_E_MISSED);
    CHECK_INT(gap.lost, 7); /* 5..11 */
    CHECK_INT(gap.oldest_seq, 12);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0); /* reported once */
    check_seqs(&s, after, 4);

    /* max_events batches; a visitor that refuses gets the same event again. */
    memset(&oldest, 0, sizeof oldest);
    oldest.from = APS_REPLAY_FROM_OLDEST;
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, &oldest, NULL), APS_OK);
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_read(rb, &cur, 2, collect, &s, &n, &gap, NULL), APS_OK);
    CHECK_INT(n, 2);
    s.refuse_at = 3;
    CHECK_INT(aps_replay_store_read(rb, &cur, 10, collect, &s, &n, &gap, NULL), APS_OK);
    CHECK_INT(n, 1);
    CHECK_INT(aps_replay_store_read(rb, &cur, 10, collect, &s, &n, &gap, NULL), APS_OK);
    CHECK_INT(n, 0);
    s.refuse_at = 0;
    CHECK_INT(aps_replay_store_read(rb, &cur, 10, collect, &s, &n, &gap, NULL), APS_OK);
    CHECK_INT(n, 1);
    check_seqs(&s, after, 4);
    CHECK_INT(aps_replay_store_read(rb, &cur, 0, collect, &s, &n, NULL, NULL), APS_OK);
    CHECK_INT(n, 0);
    aps_replay_store_close(rb);
}

/* The live tail: wait blocks until an event after the cursor exists (or the
 * time is up), without the reader polling. */
static void test_wait(void)
{
    aps_replay_store *rb = init_caps(8, 1 << 16);
    aps_replay_cursor cur;
    aps_replay_gap gap;
    seen s;
    size_t n;
    memset(&s, 0, sizeof s);
    put_plain(rb, "before");
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, NULL, NULL), APS_OK);
    CHECK_INT(aps_replay_store_read(rb, &cur, 10, collect, &s, &n, &gap, NULL), APS_OK);
    CHECK_INT(n, 0);
    CHECK_INT(aps_replay_store_wait(rb, &cur, 20, NULL), APS_E_NOT_FOUND);
    put_plain(rb, "after");
    CHECK_INT(aps_replay_store_wait(rb, &cur, 1000, NULL), APS_OK);
    CHECK_INT(aps_replay_store_read(rb, &cur, 10, collect, &s, &n, &gap, NULL), APS_OK);
    CHECK_INT(n, 1);
    CHECK_STR(s.body[0], "after");
    CHECK_INT(aps_replay_store_wait(rb, &cur, 20, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_replay_store_wait(rb, NULL, 20, NULL), APS_E_ARGUMENT);
    aps_replay_store_close(rb);
}

static void test_filtered_replay(void)
{
    aps_replay_store *rb;
    aps_replay_cursor cur;
    aps_replay_gap gap;
    aps_replay_start start;
    aps_filter f;
    aps_filter_spec spec;
    aps_slice ch[2], pre_seg;
    aps_namespace pre;
    seen s;
    static const uint64_t want[] = { 2, 5, 6 };
    ch[0] = S("custom:p");
    ch[1] = S("input");
    pre_seg = S("a");
    pre.items = &pre_seg;
    pre.count = 1;
    memset(&spec, 0, sizeof spec);
    spec.channels = ch;
    spec.channel_count = 2;
    spec.namespaces = &pre;
    spec.namespace_count = 1;
    spec.has_depth = 1;
    spec.depth = 1;
    CHECK_INT(aps_filter_init(&f, &spec, NULL, NULL), APS_OK);
    rb = init_caps(100, 1 << 16);
    put(rb, APS_CHANNEL_CUSTOM, NULL, "p", NULL, NULL, "1");  /* root: no */
    put(rb, APS_CHANNEL_CUSTOM, NULL, "p", "a", NULL, "2");   /* yes */
    put(rb, APS_CHANNEL_CUSTOM, NULL, "q", "a", NULL, "3");   /* other name */
    put(rb, APS_CHANNEL_CUSTOM, NULL, NULL, "a", NULL, "4");  /* unnamed */
    put(rb, APS_CHANNEL_INPUT, NULL, NULL, "a", "b", "5");    /* depth 1 */
    put(rb, APS_CHANNEL_CUSTOM, NULL, "p", "a", "c", "6");    /* yes */
    put(rb, APS_CHANNEL_MESSAGES, NULL, NULL, "a", NULL, "7");
    memset(&s, 0, sizeof s);
    start = from_seq(0);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, &f, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, want, 3);
    aps_replay_store_close(rb);
    aps_filter_deinit(&f);
}

static void values_filter(aps_filter *f, const char *prefix, const char *channel)
{
    aps_filter_spec spec;
    aps_slice ch = S(channel), seg = S(prefix);
    aps_namespace pre;
    pre.items = &seg;
    pre.count = prefix != NULL ? 1 : 0;
    memset(&spec, 0, sizeof spec);
    spec.channels = &ch;
    spec.channel_count = 1;
    spec.namespaces = &pre;
    spec.namespace_count = prefix != NULL ? 1 : 0;
    CHECK_INT(aps_filter_init(f, &spec, NULL, NULL), APS_OK);
}

static void test_baseline(void)
{
    aps_replay_store *rb;
    aps_replay_cursor cur;
    aps_replay_gap gap;
    aps_replay_start start;
    aps_replay_stats st;
    aps_filter vals, vals_a, upd;
    seen s;
    int i;
    static const uint64_t base_a[] = { 5 };

    values_filter(&vals, NULL, "values");
    values_filter(&vals_a, "a", "values");
    values_filter(&upd, NULL, "updates");
    rb = init_caps(4, 1 << 16);
    put(rb, APS_CHANNEL_VALUES, "v1", NULL, NULL, NULL, "root-1");  /* 1 */
    put(rb, APS_CHANNEL_VALUES, "v2", NULL, "a", NULL, "a-1");      /* 2 */
    put(rb, APS_CHANNEL_UPDATES, NULL, NULL, NULL, NULL, "u");      /* 3 */
    put(rb, APS_CHANNEL_VALUES, "v4", NULL, NULL, NULL, "root-2");  /* 4 */
    put(rb, APS_CHANNEL_VALUES, "v5", NULL, "a", NULL, "a-2");      /* 5 */
    for (i = 6; i <= 12; i++)
        put(rb, APS_CHANNEL_UPDATES, NULL, NULL, NULL, NULL, "u");
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "b", "c", "bc-1");      /* 13 */
    put(rb, APS_CHANNEL_UPDATES, NULL, NULL, NULL, NULL, "u");      /* 14 */
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.oldest_seq, 11);
    CHECK_INT(st.baseline_namespaces, 3);
    CHECK_INT(st.baseline_drops, 0);

    /* New values subscriber: the current state of each namespace, evicted or
     * not, in seq order, marked as baseline; then live. */
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, &vals, NULL, NULL), APS_OK);
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "b", "c", "bc-2");      /* 15 */
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    /* bc's state at 13 was superseded by 15 before the first read: 15 comes
     * from the ring instead, so bc is delivered once, newest state only. */
    check_seqs(&s, (const uint64_t[]){ 4, 5, 15 }, 3);
    CHECK_STR(s.body[0], "root-2");
    CHECK_STR(s.body[1], "a-2");
    CHECK_STR(s.body[2], "bc-2");
    CHECK(s.baseline[0] && s.baseline[1] && !s.baseline[2]);

    /* Read before anything changes: all three states from the baseline. */
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, &vals, NULL, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, (const uint64_t[]){ 4, 5, 15 }, 3);
    CHECK(s.baseline[0] && s.baseline[1] && s.baseline[2]);

    /* Only matching namespaces. */
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, &vals_a, NULL, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, base_a, 1);

    /* No values channel: no baseline. A resume point: no baseline. */
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, &upd, NULL, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    CHECK_INT(s.n, 0);
    memset(&s, 0, sizeof s);
    start = from_seq(13);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, &vals, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, (const uint64_t[]){ 15 }, 1);
    CHECK(!s.baseline[0]);

    /* FROM_OLDEST: baseline only for states already evicted; the buffered
     * ones come from the ring, once. Buffer holds 12..15. */
    memset(&start, 0, sizeof start);
    start.from = APS_REPLAY_FROM_OLDEST;
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, &vals, &start, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, (const uint64_t[]){ 4, 5, 13, 15 }, 4);
    CHECK(s.baseline[0] && s.baseline[1] && !s.baseline[2] && !s.baseline[3]);

    aps_replay_store_close(rb);
    aps_filter_deinit(&vals);
    aps_filter_deinit(&vals_a);
    aps_filter_deinit(&upd);
}

static void test_baseline_limits(void)
{
    aps_replay_store *rb;
    aps_replay_options o;
    aps_replay_cursor cur;
    aps_replay_gap gap;
    aps_replay_stats st;
    seen s;
    char big[200];

    memset(&o, 0, sizeof o);
    o.max_events = 64;
    o.max_bytes = 4096;
    o.baseline_namespaces = 2;
    o.baseline_bytes = 100;
    rb = backend_open(&o);
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "x", NULL, "x1");       /* 1 */
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "y", NULL, "y1");       /* 2 */
    /* Superseding a state is not a drop. */
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "x", NULL, "x2");       /* 3 */
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.baseline_namespaces, 2);
    CHECK_INT(st.baseline_drops, 0);
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, NULL, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, (const uint64_t[]){ 2, 3 }, 2);

    /* A third namespace evicts the least recently updated one (y): a drop,
     * and new values subscribers are told, then get what is kept. */
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "z", NULL, "z1");       /* 4 */
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.baseline_namespaces, 2);
    CHECK_INT(st.baseline_drops, 1);
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, NULL, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 1);
    CHECK_INT(gap.lost, 1);
    check_seqs(&s, (const uint64_t[]){ 3, 4 }, 2);

    /* A state over the byte budget is not kept and its stale predecessor goes too. */
    memset(big, 'B', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "x", NULL, big);        /* 5 */
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.baseline_namespaces, 1);
    CHECK_INT(st.baseline_drops, 2);
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, NULL, NULL), APS_OK);
    CHECK_INT(drain(rb, &cur, &s, &gap), 1);
    CHECK_INT(gap.lost, 2);
    check_seqs(&s, (const uint64_t[]){ 4 }, 1);
    CHECK_STR(s.body[0], "z1");

    /* The byte budget evicts least recently updated states to make room:
     * 3 states of 40 bytes + 4 (ends) + 1 (segment) = 45 each; two fit in 100. */
    memset(big, 'C', 40);
    big[40] = '\0';
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "x", NULL, big);        /* 6 */
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.baseline_namespaces, 2);
    CHECK_INT(st.baseline_bytes, 45 + 4 + 1 + 2);
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "z", NULL, big);        /* 7 */
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.baseline_bytes, 90);
    CHECK_INT(st.baseline_drops, 2);
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "w", NULL, big);        /* 8: evicts x */
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.baseline_namespaces, 2);
    CHECK_INT(st.baseline_bytes, 90);
    CHECK_INT(st.baseline_drops, 3);

    /* A baseline state evicted while a reader still had it due: told, not skipped. */
    memset(&s, 0, sizeof s);
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, NULL, NULL, NULL), APS_OK);
    CHECK_INT(aps_replay_store_read(rb, &cur, 1, collect, &s, NULL, &gap, NULL), APS_E_MISSED);
    CHECK_INT(gap.lost, 3);
    CHECK_INT(aps_replay_store_read(rb, &cur, 1, collect, &s, NULL, &gap, NULL), APS_OK);
    check_seqs(&s, (const uint64_t[]){ 7 }, 1);
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "v", NULL, big);        /* 9: evicts z */
    CHECK_INT(aps_replay_store_read(rb, &cur, 10, collect, &s, NULL, &gap, NULL), APS_E_MISSED);
    CHECK_INT(gap.lost, 1);
    CHECK_INT(drain(rb, &cur, &s, &gap), 0);
    check_seqs(&s, (const uint64_t[]){ 7, 8, 9 }, 3);
    aps_replay_store_close(rb);
}

static void test_allocator(void)
{
    test_alloc c;
    aps_replay_options o;
    aps_replay_store *rb;
    aps_replay raw;
    aps_replay_stats st;
    long fail, allocs;
    int i;
    memset(&o, 0, sizeof o);
    o.max_events = 16;
    o.max_bytes = 1024;
    test_alloc_init(&c, -1, 1);
    o.allocator = test_alloc_hooks(&c);
    rb = backend_open(&o);
    allocs = c.allocs;
    for (i = 0; i < 100; i++)
        put(rb, APS_CHANNEL_MESSAGES, "id", "n", "a", "b", "hello");
    CHECK_INT(c.allocs, allocs); /* appends allocate nothing */
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "a", NULL, "state");
    put(rb, APS_CHANNEL_VALUES, NULL, NULL, "a", NULL, "state2");
    CHECK_INT(c.allocs, allocs + 2); /* one block per kept state */
    CHECK_INT(c.frees, 1);           /* the superseded one */
    /* An allocation failure loses the state (a drop), never the event. */
    c.fail_at = c.allocs;
    CHECK_INT(put(rb, APS_CHANNEL_VALUES, NULL, NULL, "a", NULL, "state3"), 103);
    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.baseline_drops, 1);
    CHECK_INT(st.baseline_namespaces, 0);
    aps_replay_store_close(rb);
    CHECK_INT(c.live, 0);
    CHECK_INT(c.allocs, c.frees);

    /* Every init allocation failing in turn: NOMEM, nothing leaked. */
    for (fail = 0; fail < allocs; fail++) {
        c.calls = c.allocs = c.frees = 0;
        c.fail_at = fail;
        CHECK_INT(aps_replay_init(&raw, &o, NULL), APS_E_NOMEM);
        CHECK_INT(c.live, 0);
    }
    c.fail_at = -1;

    /* Limits and bad arguments. */
    o.max_events = (1u << 30) + 1;
    CHECK_INT(aps_replay_init(&raw, &o, NULL), APS_E_RANGE);
    CHECK_INT(aps_replay_init(NULL, &o, NULL), APS_E_ARGUMENT);
}

static void test_bad_append(void)
{
    aps_replay_store *rb;
    aps_replay_meta m;
    aps_slice bad = { NULL, 2 };
    rb = init_caps(4, 256);
    memset(&m, 0, sizeof m);
    CHECK_INT(aps_replay_store_append(rb, NULL, 3, &m, NULL, NULL), APS_E_ARGUMENT);
    CHECK_INT(aps_replay_store_append(rb, "x", 1, NULL, NULL, NULL), APS_E_ARGUMENT);
    m.ns.count = 1;
    CHECK_INT(aps_replay_store_append(rb, "x", 1, &m, NULL, NULL), APS_E_ARGUMENT);
    m.ns.items = &bad;
    CHECK_INT(aps_replay_store_append(rb, "x", 1, &m, NULL, NULL), APS_E_ARGUMENT);
    m.ns.count = 0;
    m.custom_name = bad;
    CHECK_INT(aps_replay_store_append(rb, "x", 1, &m, NULL, NULL), APS_E_ARGUMENT);
    m.custom_name.ptr = NULL;
    m.custom_name.len = 0;
    m.channel = (aps_channel)(APS_CHANNEL_OTHER + 1);
    CHECK_INT(aps_replay_store_append(rb, "x", 1, &m, NULL, NULL), APS_E_ARGUMENT);
    m.channel = APS_CHANNEL_OTHER; /* kept, delivered only to cursors without a filter */
    CHECK_INT(aps_replay_store_append(rb, "x", 1, &m, NULL, NULL), APS_OK);
    CHECK_INT((backend_last_seq(rb) + 1), 2);
    aps_replay_store_close(rb);
}

int main(void)
{
    int rc = backend_start();
    if (rc != 0)
        return rc;
    test_seq_and_get();
    test_metadata();
    test_evict_by_events();
    if (backend_memory()) {
        /* the byte capacity of the ring: the memory backend's own (aps/replay_redis.h) */
        test_evict_by_bytes();
        test_empty_events();
    }
    test_event_id_index();
    test_since();
    test_no_eviction();
    test_live_cursor();
    test_wait();
    test_filtered_replay();
    test_baseline();
    test_baseline_limits();
    if (backend_memory())
        test_allocator(); /* allocator hooks and allocation failures: the ring's */
    test_bad_append();
    return test_report();
}
