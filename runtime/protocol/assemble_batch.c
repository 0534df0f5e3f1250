/*
 * assemble_batch.c - aps_asm_feed_batch (aps/asm.h): runs of tokens for one
 * message in a loop that keeps the message in registers, the other events
 * through aps_asm_feed.
 */
#include "assemble_internal.h"

/* ---- batches --------------------------------------------------------------- */

/*
 * A batch takes runs of tokens for the message of the previous event in a
 * loop that holds the message's place and member in registers (SSE2).
 * Without SSE2, a batch is fed event by event.
 */
#if defined(__SSE2__)

/*
 * What a run of tokens needs of its message, in locals: the common case of
 * a token stream, a message whose place is one namespace segment of 17 to
 * 64 bytes (the usual "model_request:<uuid>") and a node of 1 to 15 bytes,
 * and its hot member.
 */
typedef struct token_run {
    const char *seg, *node;
    size_t seg_len, node_len;
    aps_asm_delta kind;
    uint64_t index;
    char *val;
    size_t len;
    size_t room; /* tokens that surely fit: each takes at most 16 bytes, and leaves 16 for the next */
} token_run;

/* The run's target when a->last is of that shape, has a hot member, and no on_append waits for each token. */
static int token_run_of(aps_assembler *a, token_run *t)
{
    aps_asm_message *m = a->last;
    asm_member *mb;
    if (m == NULL || m->hot == NULL || m->c.ns_len != 1 || a->cb.on_append != NULL)
        return 0;
    mb = m->hot;
    t->seg = m->c.ns[0].ptr;
    t->seg_len = m->c.ns[0].len;
    t->node = m->c.node.ptr;
    t->node_len = m->c.node.len;
    if (t->seg_len <= 16 || t->seg_len > 64 || t->node_len == 0 || t->node_len >= 16 || mb->cap - mb->len < 16)
        return 0; /* another shape, or a member too full for a token: aps_asm_feed's, which grows it */
    t->kind = m->hot_kind;
    t->index = m->hot_index;
    t->val = mb->val;
    t->len = mb->len;
    t->room = (mb->cap - mb->len - 16) / 16 + 1;
    return 1;
}

/*
 * Whether `ev` is the next token of the run, but for the bytes of its
 * segment and node; sets *seg and *node to them. Reads nothing through a
 * NULL pointer: a malformed view ends the run, and the general path then
 * refuses it. An event with a run id or a content-shaped delta ends it
 * too: aps_asm_feed checks those.
 */
static ASM_INLINE int token_fits(const token_run *t, const aps_asm_event *ev, const char **seg, const char **node)
{
    /* fields, run id and content-shaped delta are all absent in a token: one test for the three */
    if (ev->kind != APS_ASM_BLOCK_DELTA || ev->delta != t->kind || ev->index != t->index ||
        (ev->fields.len | (uintptr_t)ev->run_id.ptr | (uintptr_t)ev->content.ptr) != 0 ||
        ev->text.ptr == NULL || ev->text.len - 1 >= 16 || ev->ns_len != 1 ||
        ev->node.len != t->node_len || ev->ns == NULL || ev->ns[0].len != t->seg_len ||
        (*seg = ev->ns[0].ptr) == NULL || (*node = ev->node.ptr) == NULL)
        return 0;
    return 1;
}

/* Appends the token of `ev`, which token_fits. */
static ASM_INLINE void token_append(token_run *t, const aps_asm_event *ev, int mode)
{
    size_t n = ev->text.len; /* read before the copy, which might write over `ev` for all the compiler knows */
    put_token(t->val + t->len, ev->text.ptr, n, mode);
    t->len += n;
}

/*
 * The node of an event equals the run's (t->node_len bytes): with padded
 * strings one 16-byte compare against `word`, the run's node, bytes past
 * it masked off by `mask`.
 */
static ASM_INLINE int run_node_equal(const token_run *t, const char *node, __m128i word, unsigned mask, int padded)
{
    unsigned same;
    if (!padded)
        return place_bytes_equal(t->node, node, t->node_len);
    same = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(word, _mm_loadu_si128((const __m128i *)(const void *)node)));
    return (~same & mask) == 0;
}

/*
 * Takes the tokens at the start of evs[0..n) that the run fits, as
 * feed_last would one by one; returns how many. The segment, 17 to 64
 * bytes, is compared as four overlapping 16-byte words, the message's held
 * in registers.
 */
static ASM_INLINE size_t run_tokens(token_run *t, const aps_asm_event *evs, size_t n, int mode)
{
    int padded = mode == COPY_PADDED;
    token_run r = *t; /* in locals: the appends could otherwise write over *t, for all the compiler knows */
    size_t sl = r.seg_len, mid = sl <= 32 ? 0 : 16, end = sl <= 32 ? sl - 16 : sl - 32, i;
    __m128i s0 = _mm_loadu_si128((const __m128i *)(const void *)r.seg);
    __m128i s1 = _mm_loadu_si128((const __m128i *)(const void *)(r.seg + mid));
    __m128i s2 = _mm_loadu_si128((const __m128i *)(const void *)(r.seg + end));
    __m128i s3 = _mm_loadu_si128((const __m128i *)(const void *)(r.seg + sl - 16));
    __m128i nd = _mm_loadu_si128((const __m128i *)(const void *)r.node); /* the message's copy is padded */
    unsigned nmask = (1u << r.node_len) - 1;
    for (i = 0; i < n; i++) {
        const char *seg, *node;
        __m128i eq;
        if (!token_fits(&r, &evs[i], &seg, &node))
            break;
        eq = _mm_and_si128(
            _mm_and_si128(_mm_cmpeq_epi8(s0, _mm_loadu_si128((const __m128i *)(const void *)seg)),
                          _mm_cmpeq_epi8(s1, _mm_loadu_si128((const __m128i *)(const void *)(seg + mid)))),
            _mm_and_si128(_mm_cmpeq_epi8(s2, _mm_loadu_si128((const __m128i *)(const void *)(seg + end))),
                          _mm_cmpeq_epi8(s3, _mm_loadu_si128((const __m128i *)(const void *)(seg + sl - 16)))));
        if (_mm_movemask_epi8(eq) != 0xFFFF || !run_node_equal(&r, node, nd, nmask, padded))
            break;
        token_append(&r, &evs[i], mode);
    }
    t->len = r.len;
    return i;
}

static ASM_NOINLINE size_t run_tokens_padded(token_run *t, const aps_asm_event *evs, size_t n)
{
    return run_tokens(t, evs, n, COPY_PADDED);
}

static ASM_NOINLINE size_t run_tokens_plain(token_run *t, const aps_asm_event *evs, size_t n)
{
    return run_tokens(t, evs, n, COPY_PLAIN);
}

#if ASM_HAVE_MASKED_COPY
static ASM_NOINLINE size_t run_tokens_masked(token_run *t, const aps_asm_event *evs, size_t n)
{
    return run_tokens(t, evs, n, COPY_MASKED);
}
#endif

#endif /* __SSE2__ */

/* Takes the run of tokens at the start of evs[0..n) for a->last, if any; returns how many. */
static size_t feed_run(aps_assembler *a, const aps_asm_event *evs, size_t n)
{
#if defined(__SSE2__)
    token_run t;
    size_t took;
    if (!token_run_of(a, &t))
        return 0;
    if (n > t.room)
        n = t.room;
    if (a->opt.padded)
        took = run_tokens_padded(&t, evs, n);
#if ASM_HAVE_MASKED_COPY
    else if (a->masked_copy)
        took = run_tokens_masked(&t, evs, n);
#endif
    else
        took = run_tokens_plain(&t, evs, n);
    a->last->hot->len = t.len;
    return took;
#else
    (void)a;
    (void)evs;
    (void)n;
    return 0;
#endif
}

/*
 * Runs of tokens for the message of the previous event are taken by
 * feed_run, everything else by aps_asm_feed. A run is tried where one is
 * likely: at the start, and after an event that went to the same message
 * as the one before it. Where messages interleave token by token, trying
 * at every event would cost more than the runs save.
 */
aps_status aps_asm_feed_batch(aps_assembler *a, const aps_asm_event *evs, size_t n, size_t *fed, aps_error *err)
{
    size_t i = 0;
    int try_run = 1;
    aps_status st = APS_OK;
    if (a == NULL || (evs == NULL && n != 0)) {
        if (fed != NULL)
            *fed = 0;
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no assembler or events given");
    }
    while (i < n) {
        const aps_asm_message *before;
        if (try_run) {
            i += feed_run(a, evs + i, n - i);
            if (i == n)
                break;
        }
        before = a->last;
        st = aps_asm_feed(a, &evs[i], err);
        if (st != APS_OK)
            break;
        i++;
        try_run = a->last == before;
    }
    if (fed != NULL)
        *fed = i;
    return st;
}
