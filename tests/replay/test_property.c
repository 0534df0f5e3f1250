/*
 * test_property.c - for many seeded random logs, capacities, filters and
 * replay points, what a cursor delivers equals a brute-force filter of the
 * full log restricted to what is still buffered (plus the values baseline
 * for new subscriptions), and a miss is reported exactly when the point was
 * evicted or unknown, with the exact count. The model below shares no code
 * with the buffer: namespaces are arrays of C strings, the filter is the
 * rule of aps/filter.h written out directly, and the ring placement follows
 * the byte accounting documented in aps/replay.h.
 */
#include "../test.h"
#include "test_util.h"

#include "backend.h"

#include <stdint.h>
#include <stdlib.h>

#define MAX_LOG 400
#define MAX_EXTRA 12

static unsigned pick(uint64_t *s, unsigned n)
{
    return (unsigned)(test_rand(s) % n);
}

/* Segments with dynamic suffixes (":...") too, which a segment without ':' matches. */
static const char *const alphabet[] = { "a", "b", "ab", "", "a:1", "ab:x:y", ":z" };
#define ALPHABET_SIZE (sizeof alphabet / sizeof alphabet[0])
static const char *const names[] = { "p", "q", "pq" };
static const char *const channel_names[] = {
    "values", "updates", "messages", "tools", "lifecycle", "input",
    "checkpoints", "tasks", "custom", "custom:p", "custom:q", "custom:pq"
};

typedef struct mevent {
    uint64_t seq;
    aps_channel channel;
    const char *name; /* custom name or NULL */
    const char *ns[3];
    size_t depth;
    aps_replay_run_mark run; /* root lifecycle events only */
    char id[16];
    int has_id;
    char body[64];
    size_t len;
    size_t off, rec; /* model ring placement */
} mevent;

typedef struct model {
    mevent ev[MAX_LOG + MAX_EXTRA + 1]; /* ev[seq] */
    uint64_t last, oldest;
    size_t max_events, max_bytes;
} model;

typedef struct mfilter {
    int ch[APS_CHANNEL_COUNT];
    int custom[3]; /* custom:p, custom:q, custom:pq */
    size_t nprefix;
    const char *prefix[3][3];
    size_t plen[3];
    int has_depth;
    uint64_t depth;
} mfilter;

static size_t rec_size(const mevent *e)
{
    size_t n = 4 * e->depth + e->len, i;
    for (i = 0; i < e->depth; i++)
        n += strlen(e->ns[i]);
    if (e->channel == APS_CHANNEL_CUSTOM && e->name != NULL)
        n += strlen(e->name);
    if (e->has_id)
        n += strlen(e->id);
    return n == 0 ? 8 : (n + 7) & ~(size_t)7;
}

/* The documented placement: contiguous records, oldest evicted first. */
static void model_place(model *m, mevent *e)
{
    size_t need = e->rec;
    if (m->oldest <= m->last && m->last - m->oldest + 1 >= m->max_events)
        m->oldest++;
    for (;;) {
        const mevent *head, *newest;
        size_t tail;
        if (m->oldest > m->last) {
            e->off = 0;
            return;
        }
        head = &m->ev[m->oldest];
        newest = &m->ev[m->last];
        tail = newest->off + newest->rec;
        if (newest->off >= head->off) {
            if (tail + need <= m->max_bytes) {
                e->off = tail;
                return;
            }
            if (need <= head->off) {
                e->off = 0;
                return;
            }
        } else if (tail + need <= head->off) {
            e->off = tail;
            return;
        }
        m->oldest++;
    }
}

static void random_event(uint64_t *rs, mevent *e, uint64_t seq)
{
    size_t i;
    memset(e, 0, sizeof *e);
    e->channel = (aps_channel)pick(rs, 10); /* OTHER included */
    if (pick(rs, 4) == 0)
        e->channel = APS_CHANNEL_VALUES;
    if (e->channel == APS_CHANNEL_CUSTOM && pick(rs, 4) != 0)
        e->name = names[pick(rs, 3)];
    e->depth = pick(rs, 4);
    for (i = 0; i < e->depth; i++)
        e->ns[i] = alphabet[pick(rs, ALPHABET_SIZE)];
    if (e->channel == APS_CHANNEL_LIFECYCLE && e->depth == 0)
        e->run = (aps_replay_run_mark)pick(rs, 3);
    switch (pick(rs, 5)) {
    case 0:
        break;
    case 1:
        snprintf(e->id, sizeof e->id, "d%u", pick(rs, 4)); /* duplicates */
        e->has_id = 1;
        break;
    default:
        snprintf(e->id, sizeof e->id, "e%u", (unsigned)seq);
        e->has_id = 1;
    }
    e->len = pick(rs, 60);
    for (i = 0; i < e->len; i++)
        e->body[i] = (char)('A' + pick(rs, 26));
}

/* Appends through the API and, when accepted, to the model. */
static void append(model *m, aps_replay_store *rb, uint64_t *rs)
{
    mevent e;
    aps_replay_meta meta;
    aps_slice seg[3];
    uint64_t seq = 0;
    size_t i;
    aps_status st;
    random_event(rs, &e, m->last + 1);
    e.rec = rec_size(&e);
    memset(&meta, 0, sizeof meta);
    meta.channel = e.channel;
    meta.run = e.run;
    if (e.has_id) {
        meta.event_id.ptr = e.id;
        meta.event_id.len = strlen(e.id);
    }
    if (e.name != NULL) {
        meta.custom_name.ptr = e.name;
        meta.custom_name.len = strlen(e.name);
    }
    for (i = 0; i < e.depth; i++) {
        seg[i].ptr = e.ns[i];
        seg[i].len = strlen(e.ns[i]);
    }
    meta.ns.items = seg;
    meta.ns.count = e.depth;
    st = aps_replay_store_append(rb, e.body, e.len, &meta, &seq, NULL);
    if (e.rec > m->max_bytes) {
        CHECK_INT(st, APS_E_LIMIT);
        return;
    }
    CHECK_INT(st, APS_OK);
    CHECK_INT(seq, m->last + 1);
    e.seq = seq;
    model_place(m, &e);
    m->ev[seq] = e;
    m->last = seq;
}

/* The reference client's isPrefixMatch: a segment without ':' also matches
 * an event segment cut at its first ':'. */
static int ns_has_prefix(const mevent *e, const char *const *p, size_t plen)
{
    size_t i;
    if (plen > e->depth)
        return 0;
    for (i = 0; i < plen; i++) {
        const char *colon = strchr(e->ns[i], ':');
        if (strcmp(e->ns[i], p[i]) == 0)
            continue;
        if (strchr(p[i], ':') != NULL || colon == NULL ||
            (size_t)(colon - e->ns[i]) != strlen(p[i]) ||
            strncmp(e->ns[i], p[i], strlen(p[i])) != 0)
            return 0;
    }
    return 1;
}

static int brute_match(const mfilter *f, const mevent *e)
{
    int ch_ok = 0;
    size_t i;
    if (e->channel == APS_CHANNEL_OTHER)
        return 0;
    if (f->ch[e->channel])
        ch_ok = 1;
    if (e->channel == APS_CHANNEL_CUSTOM && e->name != NULL)
        for (i = 0; i < 3; i++)
            if (f->custom[i] && strcmp(e->name, names[i]) == 0)
                ch_ok = 1;
    if (!ch_ok)
        return 0;
    if (f->nprefix == 0)
        return 1;
    for (i = 0; i < f->nprefix; i++)
        if (ns_has_prefix(e, f->prefix[i], f->plen[i]) &&
            (!f->has_depth || e->depth - f->plen[i] <= f->depth))
            return 1;
    return 0;
}

static void random_filter(uint64_t *rs, mfilter *mf, aps_filter *f)
{
    aps_slice ch[6], segs[3][3];
    aps_namespace pre[3];
    aps_filter_spec spec;
    size_t n = 1 + pick(rs, 4), i, j;
    memset(mf, 0, sizeof *mf);
    for (i = 0; i < n; i++) {
        unsigned c = pick(rs, 12);
        ch[i].ptr = channel_names[c];
        ch[i].len = strlen(channel_names[c]);
        if (c < 9)
            mf->ch[c] = 1;
        else
            mf->custom[c - 9] = 1;
    }
    mf->nprefix = pick(rs, 3) == 0 ? 0 : pick(rs, 4);
    for (i = 0; i < mf->nprefix; i++) {
        mf->plen[i] = pick(rs, 3);
        for (j = 0; j < mf->plen[i]; j++) {
            mf->prefix[i][j] = alphabet[pick(rs, ALPHABET_SIZE)];
            segs[i][j].ptr = mf->prefix[i][j];
            segs[i][j].len = strlen(mf->prefix[i][j]);
        }
        pre[i].items = segs[i];
        pre[i].count = mf->plen[i];
    }
    mf->has_depth = pick(rs, 2);
    mf->depth = pick(rs, 4);
    memset(&spec, 0, sizeof spec);
    spec.channels = ch;
    spec.channel_count = n;
    spec.namespaces = pre;
    spec.namespace_count = mf->nprefix;
    spec.has_depth = mf->has_depth;
    spec.depth = mf->depth;
    CHECK_INT(aps_filter_init(f, &spec, NULL, NULL), APS_OK);
}

typedef struct delivered {
    uint64_t seq[2 * (MAX_LOG + MAX_EXTRA)];
    int baseline[2 * (MAX_LOG + MAX_EXTRA)];
    int body_ok;
    size_t n;
    const model *m;
} delivered;

static int collect(void *ctx, const aps_replay_event *ev)
{
    delivered *d = (delivered *)ctx;
    const mevent *e;
    if (d->n >= sizeof d->seq / sizeof d->seq[0])
        return 1;
    e = &d->m->ev[ev->seq];
    if (ev->seq > d->m->last || ev->len != e->len || memcmp(ev->bytes, e->body, e->len) != 0 ||
        ev->channel != e->channel || ev->ns.count != e->depth)
        d->body_ok = 0;
    d->seq[d->n] = ev->seq;
    d->baseline[d->n] = ev->baseline;
    d->n++;
    return 0;
}

static int same_ns(const mevent *a, const mevent *b)
{
    size_t i;
    if (a->depth != b->depth)
        return 0;
    for (i = 0; i < a->depth; i++)
        if (strcmp(a->ns[i], b->ns[i]) != 0)
            return 0;
    return 1;
}

/* The model's answer to "the oldest buffered event with this id". */
static uint64_t model_find(const model *m, const char *id)
{
    uint64_t s;
    for (s = m->oldest; s <= m->last; s++)
        if (m->ev[s].has_id && strcmp(m->ev[s].id, id) == 0)
            return s;
    return 0;
}

/* The documented run rule: an ACTIVE event while no run is open starts one,
 * an END closes it. The current run's first seq, 0 for none. */
static uint64_t model_run_start(const model *m)
{
    uint64_t s, start = 0;
    int open = 0;
    for (s = 1; s <= m->last; s++) {
        if (m->ev[s].run == APS_RUN_ACTIVE && !open) {
            start = s;
            open = 1;
        } else if (m->ev[s].run == APS_RUN_END) {
            open = 0;
        }
    }
    return start;
}

static void one_cursor(model *m, aps_replay_store *rb, uint64_t *rs)
{
    mfilter mf;
    aps_filter f;
    aps_replay_start start;
    aps_replay_cursor cur;
    aps_replay_gap gap;
    static delivered d;
    uint64_t next, base_before = 0, want[2 * (MAX_LOG + MAX_EXTRA)], s;
    int want_base[2 * (MAX_LOG + MAX_EXTRA)];
    size_t nwant = 0, i, extra;
    int unknown = 0, misses = 0, expect_miss;
    uint64_t expect_lost;
    char id[16];

    random_filter(rs, &mf, &f);
    memset(&start, 0, sizeof start);
    start.from = (aps_replay_from)pick(rs, 5);
    switch (start.from) {
    case APS_REPLAY_FROM_RUN:
        next = model_run_start(m) != 0 ? model_run_start(m) : m->oldest;
        break;
    case APS_REPLAY_FROM_NOW:
        next = m->last + 1;
        break;
    case APS_REPLAY_FROM_OLDEST:
        next = m->oldest;
        break;
    case APS_REPLAY_FROM_SEQ:
        start.seq = pick(rs, (unsigned)m->last + 4);
        unknown = start.seq > m->last;
        next = unknown ? 1 : start.seq + 1;
        break;
    default:
        if (pick(rs, 3) == 0)
            snprintf(id, sizeof id, "d%u", pick(rs, 5));
        else
            snprintf(id, sizeof id, "e%u", pick(rs, (unsigned)m->last + 4));
        start.event_id.ptr = id;
        start.event_id.len = strlen(id);
        s = model_find(m, id);
        unknown = s == 0;
        next = s + 1;
        break;
    }
    if ((start.from == APS_REPLAY_FROM_NOW || start.from == APS_REPLAY_FROM_OLDEST ||
         start.from == APS_REPLAY_FROM_RUN) && mf.ch[APS_CHANNEL_VALUES])
        base_before = next;
    CHECK_INT(aps_replay_store_cursor_init(rb, &cur, &f, &start, NULL), APS_OK);

    /* The writer goes on before the reader reads. */
    extra = pick(rs, 2) ? pick(rs, MAX_EXTRA) : 0;
    for (i = 0; i < extra && m->last < MAX_LOG + MAX_EXTRA; i++)
        append(m, rb, rs);

    expect_miss = unknown || next < m->oldest;
    expect_lost = next < m->oldest ? m->oldest - next : 0;
    if (next < m->oldest)
        next = m->oldest;

    /* Baseline: the current state of every matching namespace older than the start. */
    if (base_before != 0) {
        for (s = 1; s < base_before && s <= m->last; s++) {
            const mevent *e = &m->ev[s];
            uint64_t t, latest = s;
            if (e->channel != APS_CHANNEL_VALUES)
                continue;
            for (t = s + 1; t <= m->last; t++)
                if (m->ev[t].channel == APS_CHANNEL_VALUES && same_ns(&m->ev[t], e))
                    latest = t;
            if (latest == s && brute_match(&mf, e)) {
                want[nwant] = s;
                want_base[nwant++] = 1;
            }
        }
    }
    for (s = next; s <= m->last; s++)
        if (brute_match(&mf, &m->ev[s])) {
            want[nwant] = s;
            want_base[nwant++] = 0;
        }

    memset(&d, 0, sizeof d);
    d.m = m;
    d.body_ok = 1;
    for (;;) {
        size_t n = 0;
        aps_status st = aps_replay_store_read(rb, &cur, 1 + pick(rs, 7), collect, &d, &n, &gap, NULL);
        if (st == APS_E_MISSED) {
            CHECK_INT(d.n, 0); /* the miss comes first */
            CHECK_INT(gap.lost, expect_lost);
            CHECK_INT(gap.oldest_seq, m->oldest);
            misses++;
            continue;
        }
        CHECK_INT(st, APS_OK);
        if (n == 0)
            break;
    }
    CHECK_INT(misses, expect_miss);
    CHECK(d.body_ok);
    CHECK_INT(d.n, nwant);
    if (d.n == nwant) {
        int same = 1;
        for (i = 0; i < nwant; i++)
            if (d.seq[i] != want[i] || d.baseline[i] != want_base[i])
                same = 0;
        CHECK(same);
    }
    aps_filter_deinit(&f);
}

static void one_log(uint64_t seed)
{
    static model m;
    aps_replay_store *rb;
    aps_replay_options o;
    aps_replay_stats st;
    uint64_t rs = seed, s, found;
    size_t n, i;
    char id[16];

    memset(&m, 0, sizeof m);
    m.oldest = 1;
    m.max_events = 1 + pick(&rs, 64);
    m.max_bytes = pick(&rs, 3) == 0 ? 64 + pick(&rs, 200) : 256 + pick(&rs, 8192);
    if (!backend_memory())
        m.max_bytes = 1u << 20; /* Redis bounds the log by events only: bytes never bind */
    memset(&o, 0, sizeof o);
    o.max_events = m.max_events;
    o.max_bytes = m.max_bytes;
    o.baseline_namespaces = 512; /* every namespace the alphabet can make (400) */
    o.baseline_bytes = 1 << 20;
    o.hash_seed = seed;
    rb = backend_open(&o);
    n = pick(&rs, MAX_LOG);
    for (i = 0; i < n; i++)
        append(&m, rb, &rs);

    CHECK_INT(aps_replay_store_stats_get(rb, &st, NULL), APS_OK);
    CHECK_INT(st.last_seq, m.last);
    CHECK_INT(st.oldest_seq, m.oldest);
    CHECK_INT(st.run_start, model_run_start(&m));
    CHECK_INT(st.baseline_drops, 0);
    CHECK(st.events <= m.max_events);
    if (backend_memory())
        CHECK(st.bytes <= m.max_bytes);

    /* Lookups by seq and by eventId. */
    for (s = 0; s <= m.last + 2; s++) {
        aps_status want = s >= m.oldest && s <= m.last ? APS_OK : APS_E_NOT_FOUND;
        delivered *d = (delivered *)calloc(1, sizeof *d);
        d->m = &m;
        d->body_ok = 1;
        CHECK_INT(aps_replay_store_get(rb, s, collect, d, NULL), want);
        CHECK(d->body_ok);
        free(d);
    }
    for (i = 0; i < 12; i++) {
        if (i < 5)
            snprintf(id, sizeof id, "d%u", (unsigned)i);
        else
            snprintf(id, sizeof id, "e%u", pick(&rs, (unsigned)m.last + 3));
        s = model_find(&m, id);
        {
            aps_slice sl;
            sl.ptr = id;
            sl.len = strlen(id);
            CHECK_INT(aps_replay_store_find_event_id(rb, sl, &found, NULL), s ? APS_OK : APS_E_NOT_FOUND);
        }
        CHECK_INT(found, s);
    }

    for (i = 0; i < 8; i++)
        one_cursor(&m, rb, &rs);
    aps_replay_store_close(rb);
}

int main(int argc, char **argv)
{
    /* Each Redis log costs round trips: fewer logs there, the same rules. */
    uint64_t seed, logs = argc > 1 ? strtoull(argv[1], NULL, 10) : backend_memory() ? 1500 : 120;
    int before, rc = backend_start();
    if (rc != 0)
        return rc;
    for (seed = 1; seed <= logs; seed++) {
        before = test_checks_failed;
        one_log(seed);
        if (test_checks_failed != before) {
            fprintf(stderr, "seed %llu failed\n", (unsigned long long)seed);
            break;
        }
    }
    return test_report();
}
