/* replay.c - the per-thread replay buffer (see aps/replay.h). */
#include "aps/replay.h"

#include <stdlib.h>
#include <string.h>

/*
 * Where one buffered event lives. Its record in the byte ring is
 * [ns ends][ns bytes][custom name][eventId][event bytes], so appending is a
 * few memcpy calls and filtering reads the namespace without parsing.
 */
struct aps_replay_slot {
    uint64_t seq;
    uint32_t off;       /* record offset in the ring */
    uint32_t rec_len;   /* record length, 8-aligned */
    uint32_t len;       /* event bytes */
    uint32_t ns_count;
    uint32_t ns_bytes;  /* ends + segment bytes */
    uint32_t name_len;  /* 0: no custom name */
    uint32_t id_len;
    uint32_t id_hash;
    uint8_t channel;
    uint8_t has_id;
};

/* The latest values state of one namespace, copied out of the ring. Its
 * block has the record layout of the ring without a custom name. */
struct aps_replay_base {
    uint64_t seq;
    void *block;
    size_t block_size;
    uint32_t ns_count, ns_bytes, id_len, len;
    uint8_t has_id;
};

#define MAX_EVENTS (1u << 30)
#define GROW_FIRST ((size_t)64 << 10) /* a growing ring's first size */
#define MAX_BASE_NAMESPACES (1u << 16)

static void *mem_alloc(const aps_allocator *a, size_t size)
{
    return a->alloc != NULL ? a->alloc(a->ctx, size) : malloc(size);
}

static void mem_free(const aps_allocator *a, void *p, size_t size)
{
    if (p == NULL)
        return;
    if (a->alloc == NULL)
        free(p);
    else if (a->free != NULL)
        a->free(a->ctx, p, size);
}

static uint64_t pow2_at_least(uint64_t n)
{
    uint64_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* Seeded multiply-xorshift over 8-byte words; eventIds are short. */
static uint32_t id_hash(uint64_t seed, const char *p, size_t n)
{
    uint64_t h = seed ^ ((uint64_t)n * 0x9E3779B97F4A7C15ull);
    uint64_t w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
    }
    if (n > 0) {
        w = 0;
        memcpy(&w, p, n);
        h = (h ^ w) * 0x94D049BB133111EBull;
    }
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return (uint32_t)(h ^ (h >> 32));
}

static aps_replay_slot *slot_of(const aps_replay *rb, uint64_t seq)
{
    return &rb->slots[seq & rb->slot_mask];
}

/* Fills the pointers of `ev` from a record laid out at `rec`. */
static void record_view(aps_replay_event *ev, const uint8_t *rec, uint32_t ns_count,
                        uint32_t ns_bytes, uint32_t name_len, int has_id, uint32_t id_len,
                        uint32_t len)
{
    const uint8_t *p = rec + ns_bytes;
    ev->ns.count = ns_count;
    ev->ns.ends = ns_count > 0 ? (const uint32_t *)(const void *)rec : NULL;
    ev->ns.bytes = (const char *)rec + (size_t)ns_count * sizeof(uint32_t);
    ev->custom_name.ptr = name_len > 0 ? (const char *)p : NULL;
    ev->custom_name.len = name_len;
    p += name_len;
    ev->event_id.ptr = has_id ? (const char *)p : NULL;
    ev->event_id.len = id_len;
    p += id_len;
    ev->bytes = p;
    ev->len = len;
}

static void slot_event(const aps_replay *rb, const aps_replay_slot *s, aps_replay_event *ev)
{
    ev->seq = s->seq;
    ev->channel = (aps_channel)s->channel;
    ev->baseline = 0;
    record_view(ev, rb->ring + s->off, s->ns_count, s->ns_bytes, s->name_len, s->has_id,
                s->id_len, s->len);
}

static void base_event(const aps_replay_base *b, aps_replay_event *ev)
{
    ev->seq = b->seq;
    ev->channel = APS_CHANNEL_VALUES;
    ev->baseline = 1;
    record_view(ev, (const uint8_t *)b->block, b->ns_count, b->ns_bytes, 0, b->has_id,
                b->id_len, b->len);
}

/* ---- eventId index: linear probing, backward-shift deletion, no tombstones ---- */

static void index_insert(aps_replay *rb, uint64_t seq, uint32_t hash)
{
    uint64_t i = hash & rb->index_mask;
    while (rb->index[i] != 0)
        i = (i + 1) & rb->index_mask;
    rb->index[i] = seq;
    rb->index_hash[i] = hash;
}

static void index_remove(aps_replay *rb, uint64_t seq, uint32_t hash)
{
    uint64_t mask = rb->index_mask, i = hash & mask, j;
    while (rb->index[i] != seq) {
        if (rb->index[i] == 0)
            return; /* cannot happen: every indexed event is removed once */
        i = (i + 1) & mask;
    }
    /* Pull later entries of the probe run back over the hole unless that
     * would move one before its home position. */
    for (j = (i + 1) & mask; rb->index[j] != 0; j = (j + 1) & mask) {
        uint64_t home = rb->index_hash[j] & mask;
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        rb->index[i] = rb->index[j];
        rb->index_hash[i] = rb->index_hash[j];
        i = j;
    }
    rb->index[i] = 0;
}

static uint64_t index_find(const aps_replay *rb, aps_slice id)
{
    uint32_t h = id_hash(rb->opt.hash_seed, id.ptr, id.len);
    uint64_t i = h & rb->index_mask, best = 0;
    for (; rb->index[i] != 0; i = (i + 1) & rb->index_mask) {
        uint64_t seq = rb->index[i];
        const aps_replay_slot *s;
        aps_replay_event ev;
        if (rb->index_hash[i] != h || (best != 0 && seq > best))
            continue;
        s = slot_of(rb, seq);
        slot_event(rb, s, &ev);
        if (s->seq == seq && s->id_len == id.len &&
            (id.len == 0 || memcmp(ev.event_id.ptr, id.ptr, id.len) == 0))
            best = seq;
    }
    return best;
}

/* ---- values baseline ---- */

static int ns_equal(aps_namespace_view a, aps_namespace_view b)
{
    return a.count == b.count &&
           (a.count == 0 ||
            (memcmp(a.ends, b.ends, a.count * sizeof(uint32_t)) == 0 &&
             memcmp(a.bytes, b.bytes, a.ends[a.count - 1]) == 0));
}

static void base_remove(aps_replay *rb, size_t i)
{
    aps_replay_base *b = &rb->base[i];
    mem_free(&rb->opt.allocator, b->block, b->block_size);
    rb->base_bytes -= b->block_size;
    rb->base[i] = rb->base[--rb->base_count];
}

/* Index of the least recently updated state other than `keep`, or SIZE_MAX. */
static size_t base_oldest(const aps_replay *rb, size_t keep)
{
    size_t i, best = SIZE_MAX;
    for (i = 0; i < rb->base_count; i++)
        if (i != keep && (best == SIZE_MAX || rb->base[i].seq < rb->base[best].seq))
            best = i;
    return best;
}

/*
 * Makes `block` (already filled, or NULL when it could not be allocated or
 * is over budget) the state of its namespace. Whatever state can no longer
 * be served counts as a drop; a stale state is never kept.
 */
static void base_update(aps_replay *rb, const aps_replay_base *fresh, aps_namespace_view ns)
{
    size_t i, victim;
    aps_replay_event ev;
    for (i = 0; i < rb->base_count; i++) {
        base_event(&rb->base[i], &ev);
        if (ns_equal(ev.ns, ns))
            break;
    }
    if (fresh->block == NULL) {
        if (i < rb->base_count)
            base_remove(rb, i);
        rb->base_drops++;
        return;
    }
    if (i < rb->base_count) {
        /* The old state of this namespace is superseded, not lost. */
        mem_free(&rb->opt.allocator, rb->base[i].block, rb->base[i].block_size);
        rb->base_bytes -= rb->base[i].block_size;
        rb->base[i].block = NULL;
        rb->base[i].block_size = 0;
    } else {
        if (rb->base_count == rb->opt.baseline_namespaces) {
            base_remove(rb, base_oldest(rb, SIZE_MAX));
            rb->base_drops++;
        }
        i = rb->base_count++;
        rb->base[i].block = NULL;
        rb->base[i].block_size = 0;
    }
    while (rb->base_bytes + fresh->block_size > rb->opt.baseline_bytes &&
           (victim = base_oldest(rb, i)) != SIZE_MAX) {
        base_remove(rb, victim);
        rb->base_drops++;
        if (i == rb->base_count) /* base_remove moved entry i into the hole */
            i = victim;
    }
    rb->base[i] = *fresh;
    rb->base_bytes += fresh->block_size;
}

/* ---- lifecycle ---- */

aps_status aps_replay_init(aps_replay *rb, const aps_replay_options *opt, aps_error *err)
{
    aps_replay_options o;
    uint64_t nslots, nindex;
    if (rb == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no replay buffer given");
    memset(rb, 0, sizeof *rb);
    if (opt != NULL)
        o = *opt;
    else
        memset(&o, 0, sizeof o);
    if (o.max_events == 0)
        o.max_events = APS_REPLAY_DEFAULT_EVENTS;
    if (o.max_bytes == 0)
        o.max_bytes = APS_REPLAY_DEFAULT_BYTES;
    if (o.baseline_namespaces == 0)
        o.baseline_namespaces = APS_REPLAY_DEFAULT_BASELINE_NAMESPACES;
    if (o.baseline_bytes == 0)
        o.baseline_bytes = o.max_bytes;
    if (o.max_events > MAX_EVENTS || o.max_bytes > UINT32_MAX - 8 ||
        o.baseline_namespaces > MAX_BASE_NAMESPACES)
        return aps_error_set(err, APS_E_RANGE, SIZE_MAX,
                             "replay capacity too large (at most 2^30 events, 2^32 - 8 bytes, "
                             "2^16 baseline namespaces)");
    rb->opt = o;
    nslots = pow2_at_least(o.max_events);
    nindex = pow2_at_least(2 * (uint64_t)o.max_events);
    rb->slot_mask = nslots - 1;
    rb->index_mask = nindex - 1;
    rb->slots = (aps_replay_slot *)mem_alloc(&o.allocator, nslots * sizeof *rb->slots);
    rb->ring_cap = o.grow && o.max_bytes > GROW_FIRST ? GROW_FIRST : o.max_bytes;
    rb->ring = (uint8_t *)mem_alloc(&o.allocator, rb->ring_cap);
    rb->index = (uint64_t *)mem_alloc(&o.allocator, nindex * sizeof *rb->index);
    rb->index_hash = (uint32_t *)mem_alloc(&o.allocator, nindex * sizeof *rb->index_hash);
    rb->base = (aps_replay_base *)mem_alloc(&o.allocator, o.baseline_namespaces * sizeof *rb->base);
    if (rb->slots == NULL || rb->ring == NULL || rb->index == NULL || rb->index_hash == NULL ||
        rb->base == NULL || pthread_mutex_init(&rb->lock, NULL) != 0) {
        mem_free(&o.allocator, rb->slots, nslots * sizeof *rb->slots);
        mem_free(&o.allocator, rb->ring, rb->ring_cap);
        mem_free(&o.allocator, rb->index, nindex * sizeof *rb->index);
        mem_free(&o.allocator, rb->index_hash, nindex * sizeof *rb->index_hash);
        mem_free(&o.allocator, rb->base, o.baseline_namespaces * sizeof *rb->base);
        memset(rb, 0, sizeof *rb);
        return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory for the replay buffer");
    }
    memset(rb->index, 0, nindex * sizeof *rb->index);
    rb->oldest = 1;
    return APS_OK;
}

void aps_replay_deinit(aps_replay *rb)
{
    const aps_allocator *a;
    size_t i;
    if (rb == NULL || rb->slots == NULL)
        return;
    a = &rb->opt.allocator;
    for (i = 0; i < rb->base_count; i++)
        mem_free(a, rb->base[i].block, rb->base[i].block_size);
    mem_free(a, rb->slots, (rb->slot_mask + 1) * sizeof *rb->slots);
    mem_free(a, rb->ring, rb->ring_cap);
    mem_free(a, rb->index, (rb->index_mask + 1) * sizeof *rb->index);
    mem_free(a, rb->index_hash, (rb->index_mask + 1) * sizeof *rb->index_hash);
    mem_free(a, rb->base, rb->opt.baseline_namespaces * sizeof *rb->base);
    pthread_mutex_destroy(&rb->lock);
    memset(rb, 0, sizeof *rb);
}

uint64_t aps_replay_next_seq(aps_replay *rb)
{
    uint64_t s;
    pthread_mutex_lock(&rb->lock);
    s = rb->last + 1;
    pthread_mutex_unlock(&rb->lock);
    return s;
}

uint64_t aps_replay_last_seq(aps_replay *rb)
{
    uint64_t s;
    pthread_mutex_lock(&rb->lock);
    s = rb->last;
    pthread_mutex_unlock(&rb->lock);
    return s;
}

/* ---- append ---- */

static void evict_oldest(aps_replay *rb)
{
    const aps_replay_slot *s = slot_of(rb, rb->oldest);
    if (s->has_id)
        index_remove(rb, s->seq, s->id_hash);
    rb->oldest++;
}

/* Bytes the buffered records take in the ring (the gap a wrap skipped included). */
static size_t ring_used(const aps_replay *rb)
{
    const aps_replay_slot *head, *newest;
    size_t tail;
    if (rb->oldest > rb->last)
        return 0;
    head = slot_of(rb, rb->oldest);
    newest = slot_of(rb, rb->last);
    tail = (size_t)newest->off + newest->rec_len;
    return newest->off >= head->off ? tail - head->off : rb->ring_cap - (head->off - tail);
}

/*
 * A growing ring (opt.grow) doubles until `want` bytes fit, up to
 * max_bytes, its records moved to its start in order. Returns 0, or -1
 * when it is full size already or memory is short (the caller evicts).
 */
static int grow_ring(aps_replay *rb, size_t want)
{
    size_t cap = rb->ring_cap, pos = 0;
    uint64_t s;
    uint8_t *fresh;
    if (!rb->opt.grow || cap >= rb->opt.max_bytes)
        return -1;
    while (cap < want && cap < rb->opt.max_bytes)
        cap = cap > rb->opt.max_bytes / 2 ? rb->opt.max_bytes : cap * 2;
    if (cap == rb->ring_cap || (fresh = (uint8_t *)mem_alloc(&rb->opt.allocator, cap)) == NULL)
        return -1;
    for (s = rb->oldest; s <= rb->last; s++) {
        aps_replay_slot *slot = slot_of(rb, s);
        memcpy(fresh + pos, rb->ring + slot->off, slot->rec_len);
        slot->off = (uint32_t)pos;
        pos += slot->rec_len;
    }
    mem_free(&rb->opt.allocator, rb->ring, rb->ring_cap);
    rb->ring = fresh;
    rb->ring_cap = cap;
    return 0;
}

/* Evicts (or grows a growing ring) until a record of `need` bytes fits and returns its offset. */
static uint32_t make_room(aps_replay *rb, uint32_t need)
{
    for (;;) {
        const aps_replay_slot *head, *newest;
        uint64_t tail;
        if (rb->oldest > rb->last)
            return 0;
        head = slot_of(rb, rb->oldest);
        newest = slot_of(rb, rb->last);
        tail = (uint64_t)newest->off + newest->rec_len;
        if (newest->off >= head->off) {
            /* Records sit in [head, tail): free space at the end, then before head. */
            if (tail + need <= rb->ring_cap)
                return (uint32_t)tail;
            if (need <= head->off)
                return 0;
        } else if (tail + need <= head->off) {
            return (uint32_t)tail; /* wrapped: the free gap is [tail, head) */
        }
        if (grow_ring(rb, ring_used(rb) + need) != 0)
            evict_oldest(rb);
    }
}

static int slice_ok(aps_slice s)
{
    return s.ptr != NULL || s.len == 0;
}

aps_status aps_replay_append(aps_replay *rb, const void *bytes, size_t len,
                             const aps_replay_meta *meta, uint64_t *seq, aps_error *err)
{
    size_t ns_size, name_len, id_len, rec, i;
    uint64_t s;
    uint32_t need, pos, hash = 0;
    aps_replay_slot *slot;
    aps_replay_base fresh;
    aps_namespace_view ns;
    uint8_t *p;

    if (rb == NULL || rb->slots == NULL || meta == NULL || (bytes == NULL && len > 0) ||
        (unsigned)meta->channel > APS_CHANNEL_OTHER || (unsigned)meta->run > APS_RUN_END ||
        (meta->ns.items == NULL && meta->ns.count > 0) || !slice_ok(meta->custom_name))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "invalid replay append arguments");
    for (i = 0; i < meta->ns.count; i++)
        if (!slice_ok(meta->ns.items[i]))
            return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                                 "namespace segment %zu is a NULL slice", i);
    ns_size = aps_namespace_packed_size(meta->ns);
    name_len = meta->channel == APS_CHANNEL_CUSTOM ? meta->custom_name.len : 0;
    id_len = meta->event_id.ptr != NULL ? meta->event_id.len : 0;
    if (ns_size == SIZE_MAX || name_len > UINT32_MAX || id_len > UINT32_MAX ||
        len > UINT32_MAX)
        return aps_error_set(err, APS_E_LIMIT, SIZE_MAX, "event too large to buffer");
    rec = ns_size + name_len + id_len + len; /* each term < 2^32: no overflow */
    /* Never empty: two records at one offset would make a wrapped ring look
     * unwrapped to make_room. */
    rec = rec == 0 ? 8 : (rec + 7) & ~(size_t)7;
    if (rec > rb->opt.max_bytes)
        return aps_error_set(err, APS_E_LIMIT, SIZE_MAX,
                             "event record of %zu bytes exceeds the replay capacity of %zu bytes",
                             rec, rb->opt.max_bytes);
    need = (uint32_t)rec;
    if (meta->event_id.ptr != NULL)
        hash = id_hash(rb->opt.hash_seed, meta->event_id.ptr, id_len);

    /* The baseline copy is prepared outside the lock: readers need not wait
     * for the allocator. */
    memset(&fresh, 0, sizeof fresh);
    if (meta->channel == APS_CHANNEL_VALUES) {
        fresh.ns_count = (uint32_t)meta->ns.count;
        fresh.ns_bytes = (uint32_t)ns_size;
        fresh.has_id = meta->event_id.ptr != NULL;
        fresh.id_len = (uint32_t)id_len;
        fresh.len = (uint32_t)len;
        /* At least one byte, so an empty state still gets a block of its own. */
        fresh.block_size = ns_size + id_len + len > 0 ? ns_size + id_len + len : 1;
        if (fresh.block_size <= rb->opt.baseline_bytes)
            fresh.block = mem_alloc(&rb->opt.allocator, fresh.block_size);
        if (fresh.block != NULL) {
            p = (uint8_t *)fresh.block;
            aps_namespace_pack(p, meta->ns);
            if (id_len > 0)
                memcpy(p + ns_size, meta->event_id.ptr, id_len);
            if (len > 0)
                memcpy(p + ns_size + id_len, bytes, len);
        } else {
            fresh.block_size = 0;
        }
    }

    pthread_mutex_lock(&rb->lock);
    s = rb->last + 1;
    if (rb->oldest <= rb->last && rb->last - rb->oldest + 1 >= rb->opt.max_events)
        evict_oldest(rb);
    /* a growing ring holds at least this record (need <= max_bytes), so make_room ends */
    if (need > rb->ring_cap && grow_ring(rb, ring_used(rb) + need) != 0) {
        pthread_mutex_unlock(&rb->lock);
        mem_free(&rb->opt.allocator, fresh.block, fresh.block_size);
        return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory to grow the replay ring to %zu bytes", rec);
    }
    pos = make_room(rb, need);
    p = rb->ring + pos;
    ns = aps_namespace_pack(p, meta->ns);
    p += ns_size;
    if (name_len > 0)
        memcpy(p, meta->custom_name.ptr, name_len);
    p += name_len;
    if (id_len > 0)
        memcpy(p, meta->event_id.ptr, id_len);
    p += id_len;
    if (len > 0)
        memcpy(p, bytes, len);

    slot = slot_of(rb, s);
    slot->seq = s;
    slot->off = pos;
    slot->rec_len = need;
    slot->len = (uint32_t)len;
    slot->ns_count = (uint32_t)meta->ns.count;
    slot->ns_bytes = (uint32_t)ns_size;
    slot->name_len = (uint32_t)name_len;
    slot->id_len = (uint32_t)id_len;
    slot->id_hash = hash;
    slot->channel = (uint8_t)meta->channel;
    slot->has_id = meta->event_id.ptr != NULL;
    if (slot->has_id)
        index_insert(rb, s, hash);
    rb->last = s;
    if (meta->run == APS_RUN_ACTIVE && !rb->run_open) {
        rb->run_start = s;
        rb->run_open = 1;
    } else if (meta->run == APS_RUN_END) {
        rb->run_open = 0;
    }
    if (meta->channel == APS_CHANNEL_VALUES) {
        fresh.seq = s;
        base_update(rb, &fresh, ns);
    }
    pthread_mutex_unlock(&rb->lock);
    if (seq != NULL)
        *seq = s;
    return APS_OK;
}

/* ---- readers ---- */

aps_status aps_replay_cursor_init(aps_replay_cursor *cur, aps_replay *rb,
                                  const aps_filter *filter, const aps_replay_start *start)
{
    aps_replay_start st;
    if (start != NULL)
        st = *start;
    else
        memset(&st, 0, sizeof st);
    if (cur == NULL || rb == NULL || rb->slots == NULL ||
        (st.from == APS_REPLAY_FROM_EVENT_ID && !slice_ok(st.event_id)))
        return APS_E_ARGUMENT;
    memset(cur, 0, sizeof *cur);
    cur->filter = filter;
    pthread_mutex_lock(&rb->lock);
    switch (st.from) {
    case APS_REPLAY_FROM_NOW:
        cur->next_seq = rb->last + 1;
        break;
    case APS_REPLAY_FROM_OLDEST:
        cur->next_seq = rb->oldest;
        break;
    case APS_REPLAY_FROM_RUN:
        /* a start already evicted is below oldest: the first read reports the miss */
        cur->next_seq = rb->run_start != 0 ? rb->run_start : rb->oldest;
        break;
    case APS_REPLAY_FROM_SEQ:
        if (st.seq > rb->last) {
            cur->unknown_point = 1;
            cur->next_seq = 1;
        } else {
            cur->next_seq = st.seq + 1;
        }
        break;
    case APS_REPLAY_FROM_EVENT_ID: {
        uint64_t s = index_find(rb, st.event_id);
        cur->unknown_point = s == 0;
        cur->next_seq = s + 1;
        break;
    }
    default:
        pthread_mutex_unlock(&rb->lock);
        return APS_E_ARGUMENT;
    }
    /* Only a new subscription starts from the current state. */
    if ((st.from == APS_REPLAY_FROM_NOW || st.from == APS_REPLAY_FROM_OLDEST ||
         st.from == APS_REPLAY_FROM_RUN) &&
        (filter == NULL || aps_filter_has_channel(filter, APS_CHANNEL_VALUES)))
        cur->baseline_before = cur->next_seq;
    pthread_mutex_unlock(&rb->lock);
    return APS_OK;
}

/* The due baseline state with the smallest seq the cursor has not had. */
static const aps_replay_base *next_base(const aps_replay *rb, const aps_replay_cursor *cur)
{
    const aps_replay_base *best = NULL;
    size_t i;
    for (i = 0; i < rb->base_count; i++) {
        const aps_replay_base *b = &rb->base[i];
        aps_replay_event ev;
        if (b->block == NULL || b->seq <= cur->baseline_done || b->seq >= cur->baseline_before ||
            (best != NULL && b->seq > best->seq))
            continue;
        base_event(b, &ev);
        if (cur->filter == NULL ||
            aps_filter_match(cur->filter, APS_CHANNEL_VALUES, ev.custom_name, ev.ns))
            best = b;
    }
    return best;
}

aps_status aps_replay_read(aps_replay *rb, aps_replay_cursor *cur, size_t max_events,
                           aps_replay_visit_fn visit, void *ctx, size_t *delivered,
                           aps_replay_gap *gap)
{
    size_t n = 0;
    uint64_t lost = 0;
    int missed;
    aps_replay_event ev;

    if (delivered != NULL)
        *delivered = 0;
    if (rb == NULL || rb->slots == NULL || cur == NULL || visit == NULL)
        return APS_E_ARGUMENT;
    pthread_mutex_lock(&rb->lock);
    missed = cur->unknown_point;
    cur->unknown_point = 0;
    if (cur->next_seq < rb->oldest) {
        missed = 1;
        lost += rb->oldest - cur->next_seq;
        cur->next_seq = rb->oldest;
    }
    if (cur->baseline_before != 0 && rb->base_drops != cur->baseline_drops) {
        missed = 1;
        lost += rb->base_drops - cur->baseline_drops;
        cur->baseline_drops = rb->base_drops;
    }
    if (missed) {
        if (gap != NULL) {
            gap->lost = lost;
            gap->oldest_seq = rb->oldest;
        }
        pthread_mutex_unlock(&rb->lock);
        return APS_E_MISSED;
    }

    while (n < max_events && cur->baseline_before != 0) {
        const aps_replay_base *b = next_base(rb, cur);
        if (b == NULL) {
            cur->baseline_before = 0;
            break;
        }
        base_event(b, &ev);
        if (visit(ctx, &ev) != 0)
            goto done;
        cur->baseline_done = b->seq;
        n++;
    }
    for (; n < max_events && cur->next_seq <= rb->last; cur->next_seq++) {
        const aps_replay_slot *s = slot_of(rb, cur->next_seq);
        slot_event(rb, s, &ev);
        if (cur->filter != NULL &&
            !aps_filter_match(cur->filter, ev.channel, ev.custom_name, ev.ns))
            continue;
        if (visit(ctx, &ev) != 0)
            break;
        n++;
    }
done:
    pthread_mutex_unlock(&rb->lock);
    if (delivered != NULL)
        *delivered = n;
    return APS_OK;
}

aps_status aps_replay_get(aps_replay *rb, uint64_t seq, aps_replay_visit_fn visit, void *ctx)
{
    aps_replay_event ev;
    aps_status st = APS_E_NOT_FOUND;
    if (rb == NULL || rb->slots == NULL || visit == NULL)
        return APS_E_ARGUMENT;
    pthread_mutex_lock(&rb->lock);
    if (seq >= rb->oldest && seq <= rb->last) {
        slot_event(rb, slot_of(rb, seq), &ev);
        (void)visit(ctx, &ev);
        st = APS_OK;
    }
    pthread_mutex_unlock(&rb->lock);
    return st;
}

aps_status aps_replay_find_event_id(aps_replay *rb, aps_slice event_id, uint64_t *seq)
{
    uint64_t s;
    if (rb == NULL || rb->slots == NULL || seq == NULL || !slice_ok(event_id))
        return APS_E_ARGUMENT;
    pthread_mutex_lock(&rb->lock);
    s = index_find(rb, event_id);
    pthread_mutex_unlock(&rb->lock);
    *seq = s;
    return s != 0 ? APS_OK : APS_E_NOT_FOUND;
}

void aps_replay_stats_get(aps_replay *rb, aps_replay_stats *out)
{
    if (rb == NULL || out == NULL || rb->slots == NULL) {
        if (out != NULL)
            memset(out, 0, sizeof *out);
        return;
    }
    pthread_mutex_lock(&rb->lock);
    out->oldest_seq = rb->oldest;
    out->last_seq = rb->last;
    out->events = rb->oldest <= rb->last ? (size_t)(rb->last - rb->oldest + 1) : 0;
    out->bytes = 0;
    if (out->events > 0) {
        const aps_replay_slot *head = slot_of(rb, rb->oldest), *newest = slot_of(rb, rb->last);
        size_t tail = (size_t)newest->off + newest->rec_len;
        out->bytes = newest->off >= head->off ? tail - head->off
                                              : rb->ring_cap - (head->off - tail);
    }
    out->baseline_namespaces = rb->base_count;
    out->baseline_bytes = rb->base_bytes;
    out->baseline_drops = rb->base_drops;
    out->run_start = rb->run_start;
    pthread_mutex_unlock(&rb->lock);
}
