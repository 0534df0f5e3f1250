/*
 * assemble.c - the assembler (aps/asm.h): init, finish, and aps_asm_feed
 * with its fast path. The items, blocks and the general path for an event
 * are in the files below this one (see assemble_internal.h).
 *
 * Most events are text deltas of a few bytes for the message of the
 * previous event, so aps_asm_feed first tries feed_last: it checks the
 * place byte for byte against that message's copy and the block
 * lifecycle, and appends the token without a branch on its length and
 * without a call (no register is saved on the way). A delta for another
 * open message finds it in a small table by a hash of the place
 * (feed_delta). Anything else, or anything the fast path is not sure of,
 * takes the general path, which gives the same result. When the caller
 * promises padded strings (aps_asm_options.padded), short names are
 * compared and tokens copied as whole 16-byte words; without the promise,
 * a CPU with AVX-512BW reads a token by one masked load (copy_token_masked)
 * and others by in-token words (copy_token).
 */
#include "assemble_internal.h"

/* ---- the assembler -------------------------------------------------------- */

void aps_asm_init(aps_assembler *a, const aps_asm_options *options,
                  const aps_asm_callbacks *callbacks)
{
    aps_arena_options ao;
    memset(a, 0, sizeof *a);
    if (options != NULL)
        a->opt = *options;
    if (callbacks != NULL)
        a->cb = *callbacks;
    a->allocator = a->opt.allocator;
    if (a->opt.max_open_messages == 0)
        a->opt.max_open_messages = APS_ASM_DEFAULT_OPEN_MESSAGES;
    if (a->opt.max_open_tools == 0)
        a->opt.max_open_tools = APS_ASM_DEFAULT_OPEN_TOOLS;
    if (a->opt.max_item_bytes == 0)
        a->opt.max_item_bytes = APS_ASM_DEFAULT_ITEM_BYTES;
    if (a->opt.max_block_members == 0)
        a->opt.max_block_members = APS_ASM_DEFAULT_BLOCK_MEMBERS;
    if (a->opt.max_closed == 0)
        a->opt.max_closed = APS_ASM_DEFAULT_CLOSED;
    if (a->opt.max_link_bytes == 0)
        a->opt.max_link_bytes = APS_ASM_DEFAULT_LINK_BYTES;
    memset(&ao, 0, sizeof ao);
    ao.allocator = a->allocator;
    ao.chunk_size = 4096;
    aps_arena_init(&a->scratch, &ao);
#if ASM_HAVE_MASKED_COPY
    /* Checked once here (AVX-512 also needs the OS to keep its registers,
     * which __builtin_cpu_supports checks), not per token. */
    a->masked_copy = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#endif
    /* Per-assembler seed: keys chosen to collide in one process do not in another. */
    a->seed = (uint64_t)(uintptr_t)a * 0x9E3779B97F4A7C15ull;
}

static void free_list(aps_assembler *a, aps_asm_list *l)
{
    aps_asm_item *it = l->head, *next;
    for (; it != NULL; it = next) {
        next = it->next;
        if (it->kind == ITEM_MESSAGE)
            aps_asm_priv_message_clear(a, (aps_asm_message *)(void *)it);
        else if (it->kind == ITEM_TOOL)
            aps_asm_priv_tool_clear(a, (aps_asm_tool *)(void *)it);
        aps_asm_priv_mem_free(a, it, it->size);
    }
    memset(l, 0, sizeof *l);
}

/* Frees every item; keeps the options, callbacks and scratch buffers. */
static void clear_items(aps_assembler *a)
{
    free_list(a, &a->open);
    free_list(a, &a->closed);
    free_list(a, &a->links);
    free_list(a, &a->places);
    aps_asm_priv_mem_free(a, a->map.slots, a->map.cap * sizeof *a->map.slots);
    memset(&a->map, 0, sizeof a->map);
    a->open_messages = a->open_tools = 0;
    a->last = NULL;
    memset(a->recent, 0, sizeof a->recent);
}

void aps_asm_deinit(aps_assembler *a)
{
    if (a == NULL)
        return;
    clear_items(a);
    aps_asm_priv_mem_free(a, a->key, a->key_cap);
    a->key = NULL;
    a->key_cap = 0;
    aps_arena_deinit(&a->scratch);
}

void aps_asm_finish(aps_assembler *a)
{
    aps_asm_item *it;
    for (it = a->open.head; it != NULL; it = it->next) {
        if (it->kind == ITEM_MESSAGE) {
            /* default mode: as the reference client's abandonActive reports it */
            if (!a->opt.strict)
                aps_asm_priv_abandon(&((aps_asm_message *)(void *)it)->c,
                                     "message stream ended before message-finish");
            if (a->cb.on_message_done)
                a->cb.on_message_done(a->cb.ctx, (aps_asm_message *)(void *)it);
        } else {
            aps_asm_tool *t = (aps_asm_tool *)(void *)it;
            size_t len;
            if (!a->opt.strict)
                aps_asm_priv_abandon(&t->c, "tool stream ended before tool-finished");
            if (aps_asm_priv_id_key(a, 'L', t->id, &len) == APS_OK)
                t->link = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, len), a->key, len);
            if (a->cb.on_tool_done)
                a->cb.on_tool_done(a->cb.ctx, t);
            t->link = NULL;
        }
    }
    clear_items(a);
}

static int bad_slice(aps_slice s)
{
    return s.ptr == NULL && s.len != 0;
}

static int bad_raw(aps_json_raw r)
{
    return r.ptr == NULL && r.len != 0;
}

/* Checks the routing members and those of the event's kind (the others are ignored). */
static int event_malformed(const aps_asm_event *ev)
{
    size_t i;
    if ((unsigned)ev->kind > (unsigned)APS_ASM_MESSAGE_USAGE)
        return 1;
    if ((ev->ns == NULL && ev->ns_len != 0) || bad_slice(ev->node) || bad_slice(ev->run_id))
        return 1;
    for (i = 0; i < ev->ns_len; i++)
        if (bad_slice(ev->ns[i]))
            return 1;
    switch (ev->kind) {
    case APS_ASM_MESSAGE_START:
        return bad_slice(ev->id) || bad_slice(ev->role) || bad_raw(ev->metadata) || bad_raw(ev->usage);
    case APS_ASM_BLOCK_START:
    case APS_ASM_BLOCK_FINISH:
        return bad_raw(ev->content);
    case APS_ASM_BLOCK_DELTA:
        return bad_slice(ev->text) || bad_raw(ev->fields) || bad_raw(ev->content);
    case APS_ASM_MESSAGE_FINISH:
    case APS_ASM_MESSAGE_USAGE:
        return bad_raw(ev->usage);
    case APS_ASM_MESSAGE_ERROR:
        return bad_slice(ev->message) || bad_slice(ev->code);
    case APS_ASM_OTHER:
        return 0;
    default:
        return bad_slice(ev->tool_call_id) || bad_slice(ev->tool_name) || bad_raw(ev->input) ||
               bad_raw(ev->output) || bad_slice(ev->text) || bad_slice(ev->message) ||
               bad_slice(ev->code);
    }
}

/* Everything aps_asm_feed does but the fast path; out of line, to keep its code off the fast path. */
static ASM_NOINLINE aps_status feed(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    aps_status st;
    if (a == NULL || ev == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no assembler or event given");
    if (event_malformed(ev))
        return aps_error_set(err, APS_E_ARGUMENT, (size_t)ev->position,
                             "malformed event view (a NULL pointer with a length, or an unknown kind)");
    if (ev->kind == APS_ASM_OTHER)
        return APS_OK;
    aps_arena_reset(&a->scratch);
    a->position = ev->position;
    if (ev->kind >= APS_ASM_TOOL_STARTED && ev->kind <= APS_ASM_TOOL_ERROR)
        st = aps_asm_priv_tool_event(a, ev);
    else
        st = aps_asm_priv_message_event(a, ev);
    if (st == APS_E_NOMEM)
        return aps_error_set(err, APS_E_NOMEM, (size_t)ev->position,
                             "out of memory while assembling the event at %llu",
                             (unsigned long long)ev->position);
    return st;
}

/*
 * Whether `m` takes the event's text by the fast path: the event is the
 * next delta of its hot member. Its run id (and whether it is
 * content-shaped) is checked by the caller, with_extras.
 */
static ASM_INLINE int takes_delta(const aps_asm_message *m, const aps_asm_event *ev)
{
    /* hot is set only while m is the current message of its place and the member takes such deltas */
    return m->hot != NULL && m->hot_kind == ev->delta && ev->index == m->hot_index && ev->fields.len == 0 &&
           ev->text.ptr != NULL;
}

/* Whether the event has a run id or is content-shaped: both tested at once, one branch. */
static ASM_INLINE int with_extras(const aps_asm_event *ev)
{
    return ((uintptr_t)ev->run_id.ptr | (uintptr_t)ev->content.ptr) != 0;
}

/* Tells on_append; out of line, and reached by a tail call, like the rest below. */
static ASM_NOINLINE aps_status notify_append(aps_assembler *a, const aps_asm_message *m,
                                             const aps_asm_event *ev)
{
    a->cb.on_append(a->cb.ctx, m, ev->index, ev->delta, ev->text);
    return APS_OK;
}

/*
 * Appends the text of an event that takes_delta to the hot member of `m`
 * (a->last), any length, when the member has room for it; else the
 * general path (which grows the member) takes the event.
 */
static ASM_NOINLINE aps_status append_text(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev,
                                           aps_error *err)
{
    asm_member *mb = m->hot;
    size_t n = ev->text.len;
    if (n > mb->cap - mb->len)
        return feed(a, ev, err);
    if (n != 0) /* a member that took only empty text may have no buffer */
        memcpy(mb->val + mb->len, ev->text.ptr, n);
    mb->len += n;
    return a->cb.on_append != NULL ? notify_append(a, m, ev) : APS_OK;
}

/*
 * An event that takes_delta but has a run id (real servers send one with
 * every event) or is content-shaped: appended when the run id is m's own,
 * else the general path routes it. Reached by a tail call, so that the
 * fast path makes no call and saves no register for these.
 */
static ASM_NOINLINE aps_status feed_extras(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev,
                                           aps_error *err)
{
    if (ev->content.ptr == NULL && same_run(m, ev->run_id)) {
        a->last = m;
        return append_text(a, m, ev, err);
    }
    return feed(a, ev, err);
}

/*
 * The common case: a token of 1 to 16 bytes for `m`, which takes_delta,
 * and room for 16 in its member: no key, no lookup, no allocation, no
 * scratch, no call. Other lengths go to append_text.
 */
static ASM_INLINE aps_status append_token(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev,
                                          aps_error *err, int mode)
{
    asm_member *mb = m->hot;
    size_t n = ev->text.len;
    if (APS_SCAN_UNLIKELY(n - 1 >= 16 || mb->cap - mb->len < 16))
        return append_text(a, m, ev, err);
    put_token(mb->val + mb->len, ev->text.ptr, n, mode);
    mb->len += n;
    return a->cb.on_append != NULL ? notify_append(a, m, ev) : APS_OK;
}

/*
 * A delta for another message than the last one's: streams interleaved.
 * a->recent, a small table by a hash of the place, spares most of them
 * building the key, hashing it and probing the map.
 */
static ASM_INLINE aps_status feed_delta(aps_assembler *a, const aps_asm_event *ev, aps_error *err, int mode)
{
    int padded = mode == COPY_PADDED;
    aps_asm_message **set = place_set(a, ev->ns, ev->ns_len, ev->node.len);
    aps_asm_message *m;
    if (set[0] != NULL && same_place(&set[0]->c, ev, padded))
        m = set[0];
    else if (set[1] != NULL && same_place(&set[1]->c, ev, padded))
        m = set[1];
    else
        return feed(a, ev, err);
    if (!takes_delta(m, ev))
        return feed(a, ev, err);
    if (APS_SCAN_UNLIKELY(with_extras(ev)))
        return feed_extras(a, m, ev, err);
    a->last = m;
    return append_token(a, m, ev, err, mode);
}

/* feed_delta for each promise: functions of their own, reached by tail calls. */
static ASM_NOINLINE aps_status feed_delta_padded(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    return feed_delta(a, ev, err, COPY_PADDED);
}

static ASM_NOINLINE aps_status feed_delta_plain(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    return feed_delta(a, ev, err, COPY_PLAIN);
}

#if ASM_HAVE_MASKED_COPY
static ASM_NOINLINE aps_status feed_delta_masked(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    return feed_delta(a, ev, err, COPY_MASKED);
}
#endif

/*
 * The fast path for the message of the previous event, `mode` (how a
 * token is copied, COPY_*) a constant where it is inlined. Straight-line for places of at most one
 * segment (the usual "model_request:<uuid>", or the root); deeper places,
 * and everything else, leave by a tail call to feed_delta.
 */
static ASM_INLINE aps_status feed_last(aps_assembler *a, const aps_asm_event *ev, aps_error *err, int mode)
{
    aps_asm_message *m = a->last;
    int padded = mode == COPY_PADDED;
    if (ASM_LIKELY(m != NULL && m->c.ns_len <= 1 && ev->ns_len == m->c.ns_len && same_node(m->c.node, ev, padded) &&
                   (m->c.ns_len == 0 || (ev->ns != NULL && same_segment(m->c.seg0, ev->ns[0], padded))) &&
                   takes_delta(m, ev)))
        return ASM_LIKELY(!with_extras(ev)) ? append_token(a, m, ev, err, mode) : feed_extras(a, m, ev, err);
#if ASM_HAVE_MASKED_COPY
    if (mode == COPY_MASKED)
        return feed_delta_masked(a, ev, err);
#endif
    return padded ? feed_delta_padded(a, ev, err) : feed_delta_plain(a, ev, err);
}

/* feed_last without the padded promise, a function of its own, so that it keeps its registers to itself. */
static ASM_NOINLINE aps_status feed_last_plain(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    return feed_last(a, ev, err, COPY_PLAIN);
}

#if ASM_HAVE_MASKED_COPY
/* The same, the token copied by one masked load (a CPU with AVX-512BW). */
static ASM_NOINLINE aps_status feed_last_masked(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    return feed_last(a, ev, err, COPY_MASKED);
}
#endif

/*
 * A token for the message of the previous event goes no further than
 * feed_last; any event leaves by a tail call.
 */
aps_status aps_asm_feed(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    if (ASM_LIKELY(a != NULL && ev != NULL && ev->kind == APS_ASM_BLOCK_DELTA)) {
        if (a->opt.padded)
            return feed_last(a, ev, err, COPY_PADDED);
#if ASM_HAVE_MASKED_COPY
        if (a->masked_copy)
            return feed_last_masked(a, ev, err);
#endif
        return feed_last_plain(a, ev, err);
    }
    return feed(a, ev, err);
}
