/*
 * assemble_internal.h - what the files of the assembler (aps/asm.h) share:
 * the items and their map, messages, tools and their blocks, and the
 * calls of each file that the files above it make. Private to the runtime.
 *
 * The files call one way (tests/tooling/layers/calls.sh checks it):
 *
 *   assemble_batch.c   aps_asm_feed_batch: runs of tokens in a tight loop
 *        |             (falls back to aps_asm_feed)
 *   assemble.c         the assembler: init, finish, aps_asm_feed and its
 *        |             fast path
 *   assemble_event.c   one event by the general path: find its message or
 *        |             tool, apply the event
 *   assemble_block.c   messages, tools and their content blocks: copies,
 *        |             merges, appends, closing and failing
 *   assemble_store.c   memory, the keyed map of items, the item lists,
 *                      violations and their report
 *
 * assemble_write.c (accessors and the final JSON) reads the structs only.
 * The place compares and the token copy below are static inline here
 * because the fast path (assemble.c) and the batch loop both inline them
 * into their hot loops; a call there would cost more than the work.
 */
#ifndef APS_ASSEMBLE_INTERNAL_H
#define APS_ASSEMBLE_INTERNAL_H

#include "aps/asm.h"

#include "aps/scan.h"

#include <string.h>

enum { ITEM_MESSAGE = 1, ITEM_TOOL, ITEM_CLOSED, ITEM_LINK, ITEM_PLACE };

/* The fast path (aps_asm_feed) stays small: its helpers inline, the general path does not. */
#if defined(__GNUC__)
#define ASM_INLINE inline __attribute__((always_inline))
#define ASM_NOINLINE __attribute__((noinline))
#define ASM_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define ASM_INLINE inline
#define ASM_NOINLINE
#define ASM_LIKELY(x) (x)
#endif

/* Item flags. */
#define ITEM_POISONED 1u /* a tombstone whose later events are ignored silently */

typedef struct aps_asm_item {
    int kind;
    unsigned flags;
    uint64_t hash;
    const char *key; /* stored right after the item's struct */
    size_t key_len;
    size_t size;     /* bytes of the allocation that starts at the item */
    struct aps_asm_item *prev, *next;
} aps_asm_item;

typedef struct aps_asm_slot {
    uint64_t hash;
    aps_asm_item *item;
} aps_asm_slot;

/* Which member of a block a delta appends to. */
enum { CLASS_OTHER = 0, CLASS_TEXT, CLASS_REASONING, CLASS_DATA, CLASS_TOOL_CHUNK };

typedef struct asm_member {
    char *key;
    size_t key_len;
    char *val;   /* raw JSON, or unescaped text when `text` */
    size_t len, cap;
    int text;
} asm_member;

typedef struct asm_block {
    char *final;          /* content of content-block-finish, once finished */
    size_t final_len;
    asm_member *mem;      /* the block while it streams */
    size_t n, cap;
    int cls;
    aps_asm_delta append_kind; /* the delta kind mem[append_at] is ready for, 0: none */
    size_t append_at;
    int present;          /* 0: a hole (default mode: blocks are placed by index) */
    int open;             /* started, not finished */
} asm_block;

/* Default mode: where a delta or finish of (index, type) went when the type differed (docs/assembly.md). */
typedef struct asm_alias {
    uint64_t index;
    size_t target;
    char *type;           /* NULL: no type */
    size_t type_len;
} asm_alias;

/* Strings copied at start, the error or usage copied at the end. */
typedef struct asm_common {
    size_t bytes;           /* charged against max_item_bytes */
    aps_asm_state state;
    aps_slice *ns;
    size_t ns_len;
    aps_slice seg0;         /* ns[0] when ns_len != 0: the fast path compares it one load sooner */
    aps_slice node;
    char *head;             /* ns array, namespace, node, ids, raw values given at start */
    size_t head_size;
    char *tail;             /* usage / output, error message and code */
    size_t tail_size;
    aps_slice err_message, err_code;
    char err_text[sizeof(((aps_assembler *)0)->text)];
} asm_common;

struct aps_asm_message {
    aps_asm_item item;
    asm_common c;
    aps_slice id, role, run_id;
    aps_json_raw metadata, usage;
    char *usage_buf;        /* the usage, which message-start, usage and message-finish may each set */
    size_t usage_size;
    struct asm_place *place; /* its place while it is the place's current message, else NULL */
    asm_block *blocks;
    size_t nblocks, blocks_cap;
    int block_open;         /* strict mode: block nblocks - 1 is open */
    size_t open_blocks;     /* default mode: blocks started and not finished */
    asm_alias *alias;
    size_t nalias, alias_cap;
    /*
     * The member the last event appended to, for the fast path; set by a
     * successful append, cleared by any other event of this message.
     */
    asm_member *hot;
    aps_asm_delta hot_kind;
    uint64_t hot_index;
    aps_asm_delta skip_kind; /* default mode: the delta the last event was, when it was ignored */
    uint64_t skip_index;
    int continuing;         /* the event being applied continues the run of `hot` or of an ignored delta */
};

struct aps_asm_tool {
    aps_asm_item item;
    asm_common c;
    aps_slice id, name;
    aps_json_raw input, output;
    char *out;              /* tool-output-delta texts */
    size_t out_len, out_cap;
    int has_delta;
    const aps_asm_item *link;
};

/* A (namespace, node) and its current message: events without a run id go there. */
typedef struct asm_place {
    aps_asm_item item;
    aps_asm_message *cur;
} asm_place;

typedef struct asm_link {
    aps_asm_item item;
    const char *json;
    size_t len;
} asm_link;

/* Internal result of applying an event to a message or tool. */
typedef aps_asm_violation verdict;

/* ---- assemble_store.c ------------------------------------------------------ */

/* memory charged to an item; keys; the map; the lists; violations */
APS_INTERNAL void aps_asm_priv_mem_free(const aps_assembler *a, void *p, size_t n);
APS_INTERNAL verdict aps_asm_priv_item_alloc(aps_assembler *a, asm_common *c, size_t n, void **out);
APS_INTERNAL void aps_asm_priv_item_free(aps_assembler *a, asm_common *c, void *p, size_t n);
APS_INTERNAL verdict aps_asm_priv_item_dup(aps_assembler *a, asm_common *c, const char *src, size_t n, char **out);
APS_INTERNAL verdict aps_asm_priv_grow(aps_assembler *a, asm_common *c, char **buf, size_t len, size_t *cap,
                          size_t need);
APS_INTERNAL uint64_t aps_asm_priv_hash_bytes(uint64_t seed, const char *p, size_t n);
APS_INTERNAL aps_status aps_asm_priv_message_key(aps_assembler *a, const aps_asm_event *ev, size_t *len);
APS_INTERNAL aps_status aps_asm_priv_key_sub(aps_assembler *a, aps_slice sub, size_t *len);
APS_INTERNAL aps_status aps_asm_priv_id_key(aps_assembler *a, char prefix, aps_slice id, size_t *len);
APS_INTERNAL aps_asm_item *aps_asm_priv_map_find(const aps_asm_map *m, uint64_t h, const char *key, size_t len);
APS_INTERNAL aps_status aps_asm_priv_map_insert(aps_assembler *a, aps_asm_item *it);
APS_INTERNAL void aps_asm_priv_list_push(aps_asm_list *l, aps_asm_item *it);
APS_INTERNAL void aps_asm_priv_list_unlink(aps_asm_list *l, aps_asm_item *it);
APS_INTERNAL aps_asm_item *aps_asm_priv_item_new(aps_assembler *a, int kind, size_t size, size_t key_len);
APS_INTERNAL void aps_asm_priv_forget(aps_assembler *a, aps_asm_list *l, aps_asm_item *it);
APS_INTERNAL void aps_asm_priv_closed_push(aps_assembler *a, aps_asm_item *it);
APS_INTERNAL aps_status aps_asm_priv_poison_key(aps_assembler *a, size_t key_len);
APS_INTERNAL void aps_asm_priv_describe(aps_assembler *a, const char *fmt, ...) APS_PRINTF(2, 3);
APS_INTERNAL int aps_asm_priv_clip(size_t len);
APS_INTERNAL void aps_asm_priv_report(aps_assembler *a, const aps_asm_event *ev, verdict v);
APS_INTERNAL void aps_asm_priv_set_failure(asm_common *c, const aps_assembler *a, verdict v);

/* ---- assemble_block.c ------------------------------------------------------ */

/* freeing, closing and failing items; copies at start and end; blocks */
APS_INTERNAL void aps_asm_priv_message_clear(aps_assembler *a, aps_asm_message *m);
APS_INTERNAL void aps_asm_priv_tool_clear(aps_assembler *a, aps_asm_tool *t);
APS_INTERNAL void aps_asm_priv_message_close(aps_assembler *a, aps_asm_message *m, int poisoned);
APS_INTERNAL void aps_asm_priv_tool_close(aps_assembler *a, aps_asm_tool *t, int poisoned);
APS_INTERNAL aps_status aps_asm_priv_message_fail(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev,
                                     verdict v);
APS_INTERNAL aps_status aps_asm_priv_tool_fail(aps_assembler *a, aps_asm_tool *t, const aps_asm_event *ev, verdict v);
APS_INTERNAL verdict aps_asm_priv_copy_head(aps_assembler *a, asm_common *c, const aps_asm_event *ev,
                               aps_slice **s, size_t ns_count, aps_json_raw **r, size_t nr);
APS_INTERNAL verdict aps_asm_priv_copy_error(aps_assembler *a, asm_common *c, const aps_asm_event *ev);
APS_INTERNAL verdict aps_asm_priv_copy_tail_raw(aps_assembler *a, asm_common *c, aps_json_raw in, aps_json_raw *out);
APS_INTERNAL void aps_asm_priv_describe_message(aps_assembler *a, const aps_asm_message *m, const char *what);
APS_INTERNAL verdict aps_asm_priv_block_start(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev);
APS_INTERNAL verdict aps_asm_priv_block_finish(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev);
APS_INTERNAL verdict aps_asm_priv_block_delta(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev);
APS_INTERNAL verdict aps_asm_priv_set_usage(aps_assembler *a, aps_asm_message *m, aps_json_raw usage);
APS_INTERNAL void aps_asm_priv_abandon(asm_common *c, const char *what);

/* ---- assemble_event.c ------------------------------------------------------ */

/* the general path for one event of a message, or of a tool */
APS_INTERNAL aps_status aps_asm_priv_message_event(aps_assembler *a, const aps_asm_event *ev);
APS_INTERNAL aps_status aps_asm_priv_tool_event(aps_assembler *a, const aps_asm_event *ev);

/* ---- the place of an event, and tokens: the hot path's helpers -------------- */

/* `p` when `take` is 1, `q` when 0, by arithmetic: compilers turn ?: on pointers into branches. */
static ASM_INLINE char *pick(size_t take, const char *p, const char *q)
{
    uintptr_t m = (uintptr_t)0 - (uintptr_t)take;
    return (char *)(((uintptr_t)p & m) | ((uintptr_t)q & ~m));
}

/*
 * Appends a token of 1 to 16 bytes at `dst`, which has 16 bytes of room,
 * with no branch on n: token lengths are random, and a mispredicted branch
 * costs more than this whole copy. Four 4-byte words at offsets 0,
 * min(4, n-4), max(n-8, 0) and n-4 lie inside a token of 4 to 16 bytes and
 * cover it; a shorter token reads them from a block of zeros instead (every
 * load stays inside the token) and its bytes 0, n/2 and n-1, stored last,
 * put it right. The words are always stored at dst, whose room may take
 * any bytes past n, so no scratch is needed for short tokens.
 */
static ASM_INLINE void copy_token(char *dst, const char *src, size_t n)
{
    static const char zeros[16];
    size_t w4 = n >= 4, keep = 0 - w4;
    const char *s = pick(w4, src, zeros);
    size_t o2 = (n < 8 ? n - 4 : 4) & keep, o3 = (n > 8 ? n - 8 : 0) & keep, o4 = (n - 4) & keep;
    uint32_t a = aps_scan_load32(s), b = aps_scan_load32(s + o2), c = aps_scan_load32(s + o3),
             e = aps_scan_load32(s + o4);
    char first = src[0], mid = src[n >> 1], last = src[n - 1];
    memcpy(dst, &a, 4);
    memcpy(dst + o2, &b, 4);
    memcpy(dst + o3, &c, 4);
    memcpy(dst + o4, &e, 4);
    dst[0] = first;
    dst[n >> 1] = mid;
    dst[n - 1] = last;
}

/*
 * How the fast paths copy a token of 1 to 16 bytes into a member with 16
 * bytes of room: a constant where they are inlined.
 */
enum {
    COPY_PLAIN = 0, /* copy_token: every load inside the token */
    COPY_PADDED,    /* the caller promised padded strings: one 16-byte move */
    COPY_MASKED     /* copy_token_masked, on CPUs with AVX-512BW (aps_asm_init asks) */
};

/*
 * AVX-512's masked load reads the token's n bytes and no others (a byte
 * masked off is never accessed, so it cannot fault past the token's end),
 * and one 16-byte store writes it: the padded path's cost without the
 * promise. Inline assembly, so that the rest of the runtime needs no
 * AVX-512 compiler target; left out where a sanitizer would have to see
 * the access (ASan and MSan do not look into assembly), which then checks
 * copy_token.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__SANITIZE_ADDRESS__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define ASM_HAVE_MASKED_COPY 0
#endif
#endif
#ifndef ASM_HAVE_MASKED_COPY
#define ASM_HAVE_MASKED_COPY 1
#endif
#else
#define ASM_HAVE_MASKED_COPY 0
#endif

#if ASM_HAVE_MASKED_COPY
/* k1 is a mask register only code built for AVX-512 would use, and it is
 * never kept across calls: it needs naming only where it could be in use. */
#if defined(__AVX512F__)
#define ASM_MASK_CLOBBER , "k1"
#else
#define ASM_MASK_CLOBBER
#endif
static ASM_INLINE void copy_token_masked(char *dst, const char *src, size_t n)
{
    uint32_t mask = (1u << n) - 1u; /* n <= 16 */
    __asm__("kmovw %[mask], %%k1\n\t"
            "vmovdqu8 (%[src]), %%xmm0%{%%k1%}%{z%}\n\t"
            "vmovdqu %%xmm0, (%[dst])"
            : "=m"(*(char(*)[16])(void *)dst)
            : [mask] "r"(mask), [src] "r"(src), [dst] "r"(dst), "m"(*(const char(*)[16])(const void *)src)
            : "xmm0" ASM_MASK_CLOBBER);
}
#undef ASM_MASK_CLOBBER
#endif

/* Copies a token of 1 to 16 bytes to dst, which has 16 bytes of room, as `mode` says. */
static ASM_INLINE void put_token(char *dst, const char *src, size_t n, int mode)
{
    if (mode == COPY_PADDED)
        memcpy(dst, src, 16); /* the bytes past n are room */
#if ASM_HAVE_MASKED_COPY
    else if (mode == COPY_MASKED)
        copy_token_masked(dst, src, n);
#endif
    else
        copy_token(dst, src, n);
}

/*
 * x[0..n) == y[0..n) for the short strings of a place, n > 0: `x` is the
 * message's copy, `y` the event's. Branches on n only, which a stream of
 * events for one place repeats, so they are predicted.
 */
static ASM_INLINE int place_bytes_equal(const char *x, const char *y, size_t n)
{
    if (n < 4)
        return ((x[0] ^ y[0]) | (x[n >> 1] ^ y[n >> 1]) | (x[n - 1] ^ y[n - 1])) == 0;
    if (n < 8)
        return ((aps_scan_load32(x) ^ aps_scan_load32(y)) |
                (aps_scan_load32(x + n - 4) ^ aps_scan_load32(y + n - 4))) == 0;
    if (n <= 16)
        return ((aps_scan_load64(x) ^ aps_scan_load64(y)) |
                (aps_scan_load64(x + n - 8) ^ aps_scan_load64(y + n - 8))) == 0;
#if defined(__SSE2__)
    if (n <= 64) { /* "model_request:<uuid>" is 50: four compares, no loop */
        size_t mid = n <= 32 ? 0 : 16, end = n <= 32 ? n - 16 : n - 32;
        __m128i eq = _mm_and_si128(
            _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)x),
                                         _mm_loadu_si128((const __m128i *)(const void *)y)),
                          _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(x + mid)),
                                         _mm_loadu_si128((const __m128i *)(const void *)(y + mid)))),
            _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(x + end)),
                                         _mm_loadu_si128((const __m128i *)(const void *)(y + end))),
                          _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(x + n - 16)),
                                         _mm_loadu_si128((const __m128i *)(const void *)(y + n - 16)))));
        return _mm_movemask_epi8(eq) == 0xFFFF;
    }
#endif
    return aps_scan_bytes_equal(x, y, n);
}

/*
 * x[0..n) == y[0..n), 0 < n < 16, for padded strings: one 16-byte compare,
 * the bytes past n masked off. Without SSE2, as place_bytes_equal.
 */
static ASM_INLINE int padded_short_equal(const char *x, const char *y, size_t n)
{
#if defined(__SSE2__)
    unsigned same = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
        _mm_loadu_si128((const __m128i *)(const void *)x), _mm_loadu_si128((const __m128i *)(const void *)y)));
    return ((~same) & ((1u << n) - 1)) == 0;
#else
    return place_bytes_equal(x, y, n);
#endif
}

/* A string of the place, `x` the message's copy, `y` the event's: equal? n > 0. */
static ASM_INLINE int place_string_equal(const char *x, const char *y, size_t n, int padded)
{
    if (padded && n < 16)
        return padded_short_equal(x, y, n);
    return place_bytes_equal(x, y, n);
}

/* Node of the event equals `node`, the message's (absent and "" differ). */
static ASM_INLINE int same_node(aps_slice node, const aps_asm_event *ev, int padded)
{
    if (APS_SCAN_UNLIKELY(ev->node.len != node.len))
        return 0;
    if (APS_SCAN_LIKELY(node.len != 0))
        return ev->node.ptr != NULL && place_string_equal(node.ptr, ev->node.ptr, node.len, padded);
    return (ev->node.ptr == NULL) == (node.ptr == NULL);
}

/* Segment `e` of the event equals `k`, the message's. */
static ASM_INLINE int same_segment(aps_slice k, aps_slice e, int padded)
{
    return e.len == k.len && (k.len == 0 || (e.ptr != NULL && place_string_equal(k.ptr, e.ptr, k.len, padded)));
}

/*
 * Whether the event is for the (namespace, node) of `c`. 0 also for a
 * malformed view (a NULL pointer with a length), which the general path
 * then refuses. `padded`: the event's strings are (the message's copies
 * always are).
 */
static ASM_INLINE int same_place(const asm_common *c, const aps_asm_event *ev, int padded)
{
    size_t i;
    if (ev->ns_len != c->ns_len || (ev->ns == NULL && c->ns_len != 0) || !same_node(c->node, ev, padded))
        return 0;
    for (i = 0; i < c->ns_len; i++)
        if (!same_segment(c->ns[i], ev->ns[i], padded))
            return 0;
    return 1;
}

/*
 * Whether an event with run id `run` may go to `m`, the current message of
 * its place, without a lookup: no run id, or m's own (docs/assembly.md).
 */
static ASM_INLINE int same_run(const aps_asm_message *m, aps_slice run)
{
    return run.ptr == NULL ||
           (m->run_id.ptr != NULL && run.len == m->run_id.len && memcmp(run.ptr, m->run_id.ptr, run.len) == 0);
}

/*
 * The set of a place in a->recent (two entries, most recent first): a hash
 * of its shape and of the end of its last segment, where places of one
 * kind differ ("model_request:<uuid>", "tools:<uuid>"). Cheap, and a
 * collision only costs a lookup. Reads nothing through a NULL pointer, so
 * a malformed view gets some set and is then refused by same_place.
 */
static ASM_INLINE aps_asm_message **place_set(aps_assembler *a, const aps_slice *ns, size_t ns_len,
                                              size_t node_len)
{
    uint64_t h = ((uint64_t)ns_len << 48) ^ ((uint64_t)node_len << 32);
    if (ns != NULL && ns_len != 0 && ns[ns_len - 1].ptr != NULL) {
        const char *p = ns[ns_len - 1].ptr;
        size_t n = ns[ns_len - 1].len;
        h ^= n;
        if (n >= 8)
            h ^= aps_scan_load64(p + n - 8);
        else if (n >= 4)
            h ^= (uint64_t)aps_scan_load32(p + n - 4) << 8;
        else if (n != 0)
            h ^= (uint64_t)(unsigned char)p[n - 1] << 8;
    }
    h *= 0x9E3779B97F4A7C15ull;
    return &a->recent[(size_t)(h >> 32) % (APS_ASM_RECENT / 2) * 2];
}

#endif
