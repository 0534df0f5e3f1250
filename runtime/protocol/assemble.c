/*
 * assemble.c - message and tool assembly (aps/asm.h).
 *
 * Every message, tool, tombstone and link is an "item" with a byte-string
 * key in one hash map (linear probing, backward-shift deletion):
 *   'M' u32 nseg (u32 len, bytes)* node   -- a message, or the tombstone of
 *                                            the last one, per (namespace, node)
 *   'T' id                                -- a tool, or its tombstone
 *   'L' id                                -- a finished tool-call block
 * A message or tool becomes its own tombstone when it closes (its contents
 * are freed, the struct and key stay), so closing never allocates. A block
 * being streamed is a list of members; the member that deltas append to is
 * a growing buffer of unescaped text, written escaped when the block is
 * rendered, so appends cost amortised O(1) per byte.
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
 * compared and tokens copied as whole 16-byte words.
 */
#include "aps/asm.h"

#include "aps/scan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ITEM_MESSAGE = 1, ITEM_TOOL, ITEM_CLOSED, ITEM_LINK };

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
} asm_block;

/* Strings copied at start, the error or usage copied at the end. */
typedef struct asm_common {
    size_t bytes;           /* charged against max_item_bytes */
    aps_asm_state state;
    aps_slice *ns;
    size_t ns_len;
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
    aps_slice id, role;
    aps_json_raw metadata, usage;
    asm_block *blocks;
    size_t nblocks, blocks_cap;
    int block_open;
    /*
     * The member the last event appended to, for the fast path; set by a
     * successful append, cleared by any other event of this message.
     */
    asm_member *hot;
    aps_asm_delta hot_kind;
    uint64_t hot_index;
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

typedef struct asm_link {
    aps_asm_item item;
    const char *json;
    size_t len;
} asm_link;

/* Internal result of applying an event to a message or tool. */
typedef aps_asm_violation verdict;

/* ---- memory ------------------------------------------------------------ */

static void *mem_alloc(const aps_assembler *a, size_t n)
{
    if (n == 0)
        n = 1;
    return a->allocator.alloc ? a->allocator.alloc(a->allocator.ctx, n) : malloc(n);
}

static void mem_free(const aps_assembler *a, void *p, size_t n)
{
    if (p == NULL)
        return;
    if (n == 0)
        n = 1;
    if (a->allocator.alloc)
        a->allocator.free(a->allocator.ctx, p, n);
    else
        free(p);
}

/* Allocates `n` bytes charged to item `c`: APS_ASM_E_LIMIT past max_item_bytes. */
static verdict item_alloc(aps_assembler *a, asm_common *c, size_t n, void **out)
{
    if (n > a->opt.max_item_bytes || c->bytes > a->opt.max_item_bytes - n)
        return APS_ASM_E_LIMIT;
    *out = mem_alloc(a, n);
    if (*out == NULL)
        return APS_ASM_E_NOMEM;
    c->bytes += n;
    return APS_ASM_OK;
}

static void item_free(aps_assembler *a, asm_common *c, void *p, size_t n)
{
    if (p == NULL)
        return;
    mem_free(a, p, n);
    c->bytes -= n;
}

static verdict item_dup(aps_assembler *a, asm_common *c, const char *src, size_t n, char **out)
{
    void *p;
    verdict v = item_alloc(a, c, n, &p);
    if (v == APS_ASM_OK) {
        if (n > 0)
            memcpy(p, src, n);
        *out = (char *)p;
    }
    return v;
}

/*
 * Makes room for `need` bytes in a buffer of item `c`, doubling its
 * capacity (up to what max_item_bytes leaves for this buffer).
 */
static verdict grow(aps_assembler *a, asm_common *c, char **buf, size_t len, size_t *cap,
                    size_t need)
{
    size_t others = c->bytes - *cap, avail, ncap = *cap < 16 ? 16 : *cap;
    char *p;
    if (others > a->opt.max_item_bytes)
        return APS_ASM_E_LIMIT;
    avail = a->opt.max_item_bytes - others;
    if (need > avail)
        return APS_ASM_E_LIMIT;
    while (ncap < need)
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    if (ncap > avail)
        ncap = avail;
    if (a->allocator.alloc == NULL) {
        /*
         * realloc grows a large buffer in place or by remapping its pages:
         * no copy, and no fresh pages faulted in for the bytes already
         * there, which for a text of megabytes cost more than appending it.
         */
        p = (char *)realloc(*buf, ncap);
        if (p == NULL)
            return APS_ASM_E_NOMEM;
    } else {
        p = (char *)mem_alloc(a, ncap);
        if (p == NULL)
            return APS_ASM_E_NOMEM;
        if (len > 0)
            memcpy(p, *buf, len);
        mem_free(a, *buf, *cap);
    }
    c->bytes = others + ncap;
    *buf = p;
    *cap = ncap;
    return APS_ASM_OK;
}

/* ---- keys and the map --------------------------------------------------- */

/* A word at a time, each mixed by a multiply (splitmix64's constants); seeded per assembler. */
static uint64_t hash_bytes(uint64_t seed, const char *p, size_t n)
{
    uint64_t h = seed ^ ((uint64_t)n * 0x9E3779B97F4A7C15ull), w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    w = 0;
    if (n > 0)
        memcpy(&w, p, n);
    h = (h ^ w) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

static aps_status key_reserve(aps_assembler *a, size_t n)
{
    char *p;
    size_t cap;
    if (n <= a->key_cap)
        return APS_OK;
    cap = a->key_cap < 256 ? 256 : a->key_cap;
    while (cap < n)
        cap = cap > SIZE_MAX / 2 ? n : cap * 2;
    p = (char *)mem_alloc(a, cap);
    if (p == NULL)
        return APS_E_NOMEM;
    mem_free(a, a->key, a->key_cap);
    a->key = p;
    a->key_cap = cap;
    return APS_OK;
}

static void put_u32(char *p, size_t v)
{
    uint32_t x = v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
    memcpy(p, &x, 4);
}

/* Writes the key of the event's (namespace, node) into a->key; sets *len. */
static aps_status message_key(aps_assembler *a, const aps_asm_event *ev, size_t *len)
{
    size_t n = 1 + 4 + 1 + 4 + ev->node.len, i, at;
    for (i = 0; i < ev->ns_len; i++) {
        if (ev->ns[i].len > SIZE_MAX / 2 - n)
            return APS_E_NOMEM;
        n += 4 + ev->ns[i].len;
    }
    if (key_reserve(a, n) != APS_OK)
        return APS_E_NOMEM;
    a->key[0] = 'M';
    put_u32(a->key + 1, ev->ns_len);
    at = 5;
    for (i = 0; i < ev->ns_len; i++) {
        put_u32(a->key + at, ev->ns[i].len);
        if (ev->ns[i].len)
            memcpy(a->key + at + 4, ev->ns[i].ptr, ev->ns[i].len);
        at += 4 + ev->ns[i].len;
    }
    a->key[at++] = ev->node.ptr != NULL ? 'N' : '-';
    if (ev->node.ptr != NULL) {
        put_u32(a->key + at, ev->node.len);
        if (ev->node.len)
            memcpy(a->key + at + 4, ev->node.ptr, ev->node.len);
        at += 4 + ev->node.len;
    }
    *len = at;
    return APS_OK;
}

/* Writes `prefix` + `id` into a->key. */
static aps_status id_key(aps_assembler *a, char prefix, aps_slice id, size_t *len)
{
    if (id.len > SIZE_MAX - 1 || key_reserve(a, id.len + 1) != APS_OK)
        return APS_E_NOMEM;
    a->key[0] = prefix;
    if (id.len)
        memcpy(a->key + 1, id.ptr, id.len);
    *len = id.len + 1;
    return APS_OK;
}

static aps_asm_item *map_find(const aps_asm_map *m, uint64_t h, const char *key, size_t len)
{
    size_t i, mask;
    if (m->cap == 0)
        return NULL;
    mask = m->cap - 1;
    for (i = (size_t)h & mask; m->slots[i].item != NULL; i = (i + 1) & mask) {
        const aps_asm_item *it = m->slots[i].item;
        if (m->slots[i].hash == h && it->key_len == len && memcmp(it->key, key, len) == 0)
            return m->slots[i].item;
    }
    return NULL;
}

static void map_place(aps_asm_slot *slots, size_t cap, aps_asm_item *it)
{
    size_t i = (size_t)it->hash & (cap - 1);
    while (slots[i].item != NULL)
        i = (i + 1) & (cap - 1);
    slots[i].hash = it->hash;
    slots[i].item = it;
}

static aps_status map_insert(aps_assembler *a, aps_asm_item *it)
{
    aps_asm_map *m = &a->map;
    if ((m->count + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64, i;
        aps_asm_slot *slots;
        if (cap > SIZE_MAX / sizeof *slots)
            return APS_E_NOMEM;
        slots = (aps_asm_slot *)mem_alloc(a, cap * sizeof *slots);
        if (slots == NULL)
            return APS_E_NOMEM;
        memset(slots, 0, cap * sizeof *slots);
        for (i = 0; i < m->cap; i++)
            if (m->slots[i].item != NULL)
                map_place(slots, cap, m->slots[i].item);
        mem_free(a, m->slots, m->cap * sizeof *m->slots);
        m->slots = slots;
        m->cap = cap;
    }
    map_place(m->slots, m->cap, it);
    m->count++;
    return APS_OK;
}

static void map_remove(aps_asm_map *m, const aps_asm_item *it)
{
    size_t mask = m->cap - 1, i = (size_t)it->hash & mask, j;
    while (m->slots[i].item != it)
        i = (i + 1) & mask;
    /* Backward shift: move later entries of the probe run into the hole. */
    for (j = (i + 1) & mask; m->slots[j].item != NULL; j = (j + 1) & mask) {
        size_t home = (size_t)m->slots[j].hash & mask;
        int movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].item = NULL;
    m->count--;
}

/* ---- lists ------------------------------------------------------------- */

static void list_push(aps_asm_list *l, aps_asm_item *it)
{
    it->next = NULL;
    it->prev = l->tail;
    if (l->tail)
        l->tail->next = it;
    else
        l->head = it;
    l->tail = it;
    l->count++;
    l->bytes += it->size;
}

static void list_unlink(aps_asm_list *l, aps_asm_item *it)
{
    if (it->prev)
        it->prev->next = it->next;
    else
        l->head = it->next;
    if (it->next)
        it->next->prev = it->prev;
    else
        l->tail = it->prev;
    it->prev = it->next = NULL;
    l->count--;
    l->bytes -= it->size;
}

/* Allocates an item of `size` bytes (struct included) followed by its key in a->key. */
static aps_asm_item *item_new(aps_assembler *a, int kind, size_t size, size_t key_len)
{
    aps_asm_item *it;
    char *key;
    if (key_len > SIZE_MAX - size)
        return NULL;
    it = (aps_asm_item *)mem_alloc(a, size + key_len);
    if (it == NULL)
        return NULL;
    memset(it, 0, size);
    key = (char *)it + size;
    memcpy(key, a->key, key_len);
    it->kind = kind;
    it->key = key;
    it->key_len = key_len;
    it->hash = hash_bytes(a->seed, key, key_len);
    it->size = size + key_len;
    return it;
}

/* Removes a tombstone or a link from the map and its list, and frees it. */
static void forget(aps_assembler *a, aps_asm_list *l, aps_asm_item *it)
{
    map_remove(&a->map, it);
    list_unlink(l, it);
    mem_free(a, it, it->size);
}

static void closed_push(aps_assembler *a, aps_asm_item *it)
{
    list_push(&a->closed, it);
    while (a->closed.count > a->opt.max_closed)
        forget(a, &a->closed, a->closed.head);
}

/* Remembers the key in a->key as failed, so its later events are ignored. */
static aps_status poison_key(aps_assembler *a, size_t key_len)
{
    aps_asm_item *it = item_new(a, ITEM_CLOSED, sizeof(aps_asm_item), key_len);
    if (it == NULL)
        return APS_E_NOMEM;
    it->flags = ITEM_POISONED;
    if (map_insert(a, it) != APS_OK) {
        mem_free(a, it, it->size);
        return APS_E_NOMEM;
    }
    closed_push(a, it);
    return APS_OK;
}

/* ---- violations --------------------------------------------------------- */

static const char *const violation_names[] = {
    "ok",
    "no-message",
    "message-finished",
    "message-open",
    "block-open",
    "block-index",
    "block-not-started",
    "block-finished",
    "delta-mismatch",
    "field-type",
    "not-object",
    "finish-block-open",
    "tool-unknown",
    "tool-started",
    "tool-finished",
    "limit",
    "out-of-memory",
};

const char *aps_asm_violation_name(aps_asm_violation v)
{
    if ((size_t)v >= sizeof violation_names / sizeof violation_names[0])
        return "unknown";
    return violation_names[v];
}

/* Formats the violation text into a->text. */
static void describe(aps_assembler *a, const char *fmt, ...) APS_PRINTF(2, 3);

static void describe(aps_assembler *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->text, sizeof a->text, fmt, ap);
    va_end(ap);
}

static int clip(size_t len)
{
    return len > 64 ? 64 : (int)len;
}

/* Reports the violation in a->text (not for APS_ASM_E_NOMEM, which is returned instead). */
static void report(aps_assembler *a, const aps_asm_event *ev, verdict v)
{
    if (v == APS_ASM_E_NOMEM)
        return;
    a->violations++;
    if (a->cb.on_violation)
        a->cb.on_violation(a->cb.ctx, ev->position, v, a->text);
}

static void set_failure(asm_common *c, const aps_assembler *a, verdict v)
{
    if (v == APS_ASM_E_NOMEM)
        snprintf(c->err_text, sizeof c->err_text, "out of memory");
    else
        memcpy(c->err_text, a->text, sizeof c->err_text);
    c->err_message.ptr = c->err_text;
    c->err_message.len = strlen(c->err_text);
    c->err_code.ptr = aps_asm_violation_name(v);
    c->err_code.len = strlen(c->err_code.ptr);
    c->state = APS_ASM_ERROR;
}

/* ---- messages ----------------------------------------------------------- */

static void block_free_members(aps_assembler *a, asm_common *c, asm_block *b)
{
    size_t i;
    for (i = 0; i < b->n; i++) {
        item_free(a, c, b->mem[i].key, b->mem[i].key_len);
        item_free(a, c, b->mem[i].val, b->mem[i].cap);
    }
    item_free(a, c, b->mem, b->cap * sizeof *b->mem);
    b->mem = NULL;
    b->n = b->cap = 0;
    b->append_kind = APS_ASM_DELTA_UNKNOWN;
}

static void common_free(aps_assembler *a, asm_common *c)
{
    item_free(a, c, c->head, c->head_size);
    item_free(a, c, c->tail, c->tail_size);
    c->head = c->tail = NULL;
}

/* Frees the contents of `m`; the struct stays as its tombstone. */
static void message_clear(aps_assembler *a, aps_asm_message *m)
{
    size_t i;
    for (i = 0; i < m->nblocks; i++) {
        block_free_members(a, &m->c, &m->blocks[i]);
        item_free(a, &m->c, m->blocks[i].final, m->blocks[i].final_len);
    }
    item_free(a, &m->c, m->blocks, m->blocks_cap * sizeof *m->blocks);
    m->blocks = NULL;
    m->nblocks = m->blocks_cap = 0;
    common_free(a, &m->c);
}

static void tool_clear(aps_assembler *a, aps_asm_tool *t)
{
    item_free(a, &t->c, t->out, t->out_cap);
    t->out = NULL;
    common_free(a, &t->c);
}

/* Drops `m` from the caches: it is closing, and its copy of the place is about to be freed. */
static void forget_recent(aps_assembler *a, const aps_asm_message *m)
{
    size_t i;
    if (a->last == m)
        a->last = NULL;
    for (i = 0; i < APS_ASM_RECENT; i++)
        if (a->recent[i] == m)
            a->recent[i] = NULL;
}

/* Delivers `m` and turns it into a tombstone (poisoned when it failed by violation). */
static void message_close(aps_assembler *a, aps_asm_message *m, int poisoned)
{
    if (a->cb.on_message_done)
        a->cb.on_message_done(a->cb.ctx, m);
    forget_recent(a, m);
    message_clear(a, m);
    list_unlink(&a->open, &m->item);
    a->open_messages--;
    m->item.kind = ITEM_CLOSED;
    m->item.flags = poisoned ? ITEM_POISONED : 0;
    closed_push(a, &m->item);
}

static void tool_close(aps_assembler *a, aps_asm_tool *t, int poisoned)
{
    size_t len;
    /*
     * a->key holds 'T' + this id (tool_event built it): look the link up
     * with the same bytes and 'L', then put the 'T' back for the caller.
     */
    a->key[0] = 'L';
    len = t->item.key_len;
    t->link = map_find(&a->map, hash_bytes(a->seed, a->key, len), a->key, len);
    a->key[0] = 'T';
    if (a->cb.on_tool_done)
        a->cb.on_tool_done(a->cb.ctx, t);
    t->link = NULL;
    tool_clear(a, t);
    list_unlink(&a->open, &t->item);
    a->open_tools--;
    t->item.kind = ITEM_CLOSED;
    t->item.flags = poisoned ? ITEM_POISONED : 0;
    closed_push(a, &t->item);
}

/* Fails `m` for verdict `v` (text in a->text), reports it and delivers it. */
static aps_status message_fail(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev,
                               verdict v)
{
    set_failure(&m->c, a, v);
    report(a, ev, v);
    message_close(a, m, 1);
    return v == APS_ASM_E_NOMEM ? APS_E_NOMEM : APS_OK;
}

static aps_status tool_fail(aps_assembler *a, aps_asm_tool *t, const aps_asm_event *ev, verdict v)
{
    set_failure(&t->c, a, v);
    report(a, ev, v);
    tool_close(a, t, 1);
    return v == APS_ASM_E_NOMEM ? APS_E_NOMEM : APS_OK;
}

static int add_size(size_t *total, size_t n)
{
    if (n > SIZE_MAX - *total)
        return 0;
    *total += n;
    return 1;
}

/*
 * Copies the namespace, node and the given slices and raw values into one
 * allocation, `c->head`. `s` and `r` are updated to point at the copies.
 */
static verdict copy_head(aps_assembler *a, asm_common *c, const aps_asm_event *ev,
                         aps_slice **s, size_t ns_count, aps_json_raw **r, size_t nr)
{
    size_t size = 0, i;
    char *p;
    verdict v;
    if (ev->ns_len > SIZE_MAX / sizeof(aps_slice))
        return APS_ASM_E_LIMIT;
    if (!add_size(&size, ev->ns_len * sizeof(aps_slice)) || !add_size(&size, ev->node.len))
        return APS_ASM_E_LIMIT;
    for (i = 0; i < ev->ns_len; i++)
        if (!add_size(&size, ev->ns[i].len))
            return APS_ASM_E_LIMIT;
    for (i = 0; i < ns_count; i++)
        if (!add_size(&size, s[i]->len))
            return APS_ASM_E_LIMIT;
    for (i = 0; i < nr; i++)
        if (!add_size(&size, r[i]->len))
            return APS_ASM_E_LIMIT;
    /* padded, so that the fast path may read the place 16 bytes at a time */
    if (!add_size(&size, APS_PADDING))
        return APS_ASM_E_LIMIT;
    v = item_alloc(a, c, size, (void **)&c->head);
    if (v != APS_ASM_OK)
        return v;
    c->head_size = size;
    c->ns = ev->ns_len ? (aps_slice *)(void *)c->head : NULL;
    c->ns_len = ev->ns_len;
    p = c->head + ev->ns_len * sizeof(aps_slice);
/* dst and src may be the same object. */
#define COPY_INTO(dst, src)                     \
    do {                                        \
        const char *from_ = (src).ptr;          \
        size_t n_ = (src).len;                  \
        (dst).ptr = from_ ? p : NULL;           \
        (dst).len = n_;                         \
        if (n_)                                 \
            memcpy(p, from_, n_);               \
        p += n_;                                \
    } while (0)
    for (i = 0; i < ev->ns_len; i++) {
        /* Segments are never NULL: an empty one still is a string. */
        c->ns[i].ptr = p;
        c->ns[i].len = ev->ns[i].len;
        if (ev->ns[i].len)
            memcpy(p, ev->ns[i].ptr, ev->ns[i].len);
        p += ev->ns[i].len;
    }
    COPY_INTO(c->node, ev->node);
    for (i = 0; i < ns_count; i++)
        COPY_INTO(*s[i], *s[i]);
    for (i = 0; i < nr; i++)
        COPY_INTO(*r[i], *r[i]);
#undef COPY_INTO
    return APS_ASM_OK;
}

/* Copies message and code (error events) into c->tail and sets the error. */
static verdict copy_error(aps_assembler *a, asm_common *c, const aps_asm_event *ev)
{
    size_t size = ev->message.len;
    verdict v;
    if (!add_size(&size, ev->code.len))
        return APS_ASM_E_LIMIT;
    v = item_alloc(a, c, size, (void **)&c->tail);
    if (v != APS_ASM_OK)
        return v;
    c->tail_size = size;
    c->err_message.ptr = c->tail;
    c->err_message.len = ev->message.len;
    if (ev->message.len)
        memcpy(c->tail, ev->message.ptr, ev->message.len);
    c->err_code.ptr = ev->code.ptr ? c->tail + ev->message.len : NULL;
    c->err_code.len = ev->code.len;
    if (ev->code.len)
        memcpy(c->tail + ev->message.len, ev->code.ptr, ev->code.len);
    c->state = APS_ASM_ERROR;
    return APS_ASM_OK;
}

static verdict copy_tail_raw(aps_assembler *a, asm_common *c, aps_json_raw in, aps_json_raw *out)
{
    verdict v;
    out->ptr = NULL;
    out->len = 0;
    if (in.ptr == NULL)
        return APS_ASM_OK;
    v = item_dup(a, c, in.ptr, in.len, &c->tail);
    if (v != APS_ASM_OK)
        return v;
    c->tail_size = in.len;
    out->ptr = c->tail;
    out->len = in.len;
    return APS_ASM_OK;
}

static int slice_is(aps_slice s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.ptr, lit, n) == 0;
}

static int class_of(aps_slice type)
{
    if (slice_is(type, "text"))
        return CLASS_TEXT;
    if (slice_is(type, "reasoning"))
        return CLASS_REASONING;
    if (slice_is(type, "image") || slice_is(type, "audio") || slice_is(type, "video") ||
        slice_is(type, "file"))
        return CLASS_DATA;
    if (slice_is(type, "tool_call_chunk") || slice_is(type, "server_tool_call_chunk"))
        return CLASS_TOOL_CHUNK;
    return CLASS_OTHER;
}

/* Reads the raw JSON string `raw` unescaped (scratch arena); 0 if it is not a string. */
static int raw_string(aps_assembler *a, aps_json_raw raw, aps_slice *out, verdict *v)
{
    aps_json_reader r;
    aps_status st;
    *v = APS_ASM_OK;
    if (aps_json_raw_kind(raw) != APS_JSON_STRING)
        return 0;
    /* Most strings have no escape: the bytes between the quotes are the text. */
    if (memchr(raw.ptr, '\\', raw.len) == NULL) {
        out->ptr = raw.ptr + 1;
        out->len = raw.len - 2;
        return 1;
    }
    aps_json_raw_reader(&r, raw, &a->scratch);
    st = aps_json_read_string(&r, out, NULL);
    if (st == APS_E_NOMEM || st == APS_E_LIMIT)
        *v = APS_ASM_E_NOMEM;
    return st == APS_OK;
}

/* The class of the block from its `type` member. */
static int block_class(aps_assembler *a, const asm_block *b, verdict *v)
{
    size_t i;
    *v = APS_ASM_OK;
    for (i = 0; i < b->n; i++) {
        const asm_member *mb = &b->mem[i];
        if (mb->key_len == 4 && memcmp(mb->key, "type", 4) == 0) {
            aps_slice s;
            aps_json_raw raw;
            if (mb->text) {
                s.ptr = mb->val;
                s.len = mb->len;
                return class_of(s);
            }
            raw.ptr = mb->val;
            raw.len = mb->len;
            return raw_string(a, raw, &s, v) ? class_of(s) : CLASS_OTHER;
        }
    }
    return CLASS_OTHER;
}

static size_t member_find(const asm_block *b, const char *key, size_t len)
{
    size_t i;
    for (i = 0; i < b->n; i++)
        if (b->mem[i].key_len == len && memcmp(b->mem[i].key, key, len) == 0)
            return i;
    return SIZE_MAX;
}

/* Adds member `key` (value empty) to `b`; sets *at. */
static verdict member_add(aps_assembler *a, asm_common *c, asm_block *b, aps_slice key, size_t *at)
{
    asm_member *mb;
    verdict v;
    if (b->n >= a->opt.max_block_members)
        return APS_ASM_E_LIMIT;
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        asm_member *mem;
        if (cap > a->opt.max_block_members)
            cap = a->opt.max_block_members;
        v = item_alloc(a, c, cap * sizeof *mem, (void **)&mem);
        if (v != APS_ASM_OK)
            return v;
        if (b->n)
            memcpy(mem, b->mem, b->n * sizeof *mem);
        item_free(a, c, b->mem, b->cap * sizeof *b->mem);
        b->mem = mem;
        b->cap = cap;
    }
    mb = &b->mem[b->n];
    memset(mb, 0, sizeof *mb);
    v = item_dup(a, c, key.ptr, key.len, &mb->key);
    if (v != APS_ASM_OK)
        return v;
    mb->key_len = key.len;
    *at = b->n++;
    return APS_ASM_OK;
}

/* Sets member `at` to a copy of `raw`. */
static verdict member_set_raw(aps_assembler *a, asm_common *c, asm_member *mb, aps_json_raw raw)
{
    char *val;
    verdict v = item_dup(a, c, raw.ptr, raw.len, &val);
    if (v != APS_ASM_OK)
        return v;
    item_free(a, c, mb->val, mb->cap);
    mb->val = val;
    mb->len = mb->cap = raw.len;
    mb->text = 0;
    return APS_ASM_OK;
}

/*
 * Merges the members of the JSON object `obj` onto `b` (content-block-start
 * builds the block this way from nothing, block-delta onto the block).
 */
static verdict block_merge(aps_assembler *a, asm_common *c, asm_block *b, aps_json_raw obj)
{
    aps_json_reader r;
    aps_slice key;
    aps_json_raw val;
    int more, added;
    aps_status st;
    verdict v;
    if (aps_json_raw_kind(obj) != APS_JSON_OBJECT)
        return APS_ASM_E_NOT_OBJECT;
    aps_json_raw_reader(&r, obj, &a->scratch);
    st = aps_json_read_object(&r, NULL);
    while (st == APS_OK && (st = aps_json_next_member(&r, &key, &more, NULL)) == APS_OK && more) {
        size_t at;
        if ((st = aps_json_read_raw(&r, &val, NULL)) != APS_OK)
            break;
        at = member_find(b, key.ptr, key.len);
        added = at == SIZE_MAX;
        if (added && (v = member_add(a, c, b, key, &at)) != APS_ASM_OK)
            return v;
        if ((v = member_set_raw(a, c, &b->mem[at], val)) != APS_ASM_OK) {
            if (added) { /* a member without a value must not be rendered */
                item_free(a, c, b->mem[at].key, b->mem[at].key_len);
                b->n--;
            }
            return v;
        }
    }
    /* Raw values are valid JSON: only memory can fail, unless the caller broke that promise. */
    if (st != APS_OK)
        return st == APS_E_NOMEM || st == APS_E_LIMIT ? APS_ASM_E_NOMEM : APS_ASM_E_NOT_OBJECT;
    b->append_kind = APS_ASM_DELTA_UNKNOWN;
    b->cls = block_class(a, b, &v);
    return v;
}

static const char *append_field(aps_asm_delta kind, size_t *len)
{
    switch (kind) {
    case APS_ASM_DELTA_TEXT: *len = 4; return "text";
    case APS_ASM_DELTA_REASONING: *len = 9; return "reasoning";
    case APS_ASM_DELTA_DATA: *len = 6; return "base64";
    default: *len = 4; return "args";
    }
}

static int delta_fits(aps_asm_delta kind, int cls)
{
    switch (kind) {
    case APS_ASM_DELTA_TEXT: return cls == CLASS_TEXT;
    case APS_ASM_DELTA_REASONING: return cls == CLASS_REASONING;
    case APS_ASM_DELTA_DATA: return cls == CLASS_DATA;
    case APS_ASM_DELTA_TOOL_CALL: return cls == CLASS_TOOL_CHUNK;
    default: return 1;
    }
}

static const char *delta_name(aps_asm_delta kind)
{
    switch (kind) {
    case APS_ASM_DELTA_TEXT: return "text-delta";
    case APS_ASM_DELTA_REASONING: return "reasoning-delta";
    case APS_ASM_DELTA_DATA: return "data-delta";
    case APS_ASM_DELTA_BLOCK: return "block-delta";
    case APS_ASM_DELTA_TOOL_CALL: return "tool-call-delta";
    default: return "delta of unknown type";
    }
}

/* Makes the member that `kind` appends to a text buffer; sets b->append_at. */
static verdict append_target(aps_assembler *a, asm_common *c, asm_block *b, aps_asm_delta kind)
{
    size_t flen, at;
    const char *field = append_field(kind, &flen);
    asm_member *mb;
    verdict v;
    at = member_find(b, field, flen);
    if (at == SIZE_MAX) {
        aps_slice key;
        key.ptr = field;
        key.len = flen;
        if ((v = member_add(a, c, b, key, &at)) != APS_ASM_OK)
            return v;
        b->mem[at].text = 1;
    }
    mb = &b->mem[at];
    if (!mb->text) {
        aps_json_raw raw;
        aps_slice s;
        raw.ptr = mb->val;
        raw.len = mb->len;
        if (aps_json_raw_kind(raw) == APS_JSON_NULL) {
            mb->len = 0;
        } else if (raw_string(a, raw, &s, &v)) {
            /* Unescaped text is never longer than its JSON: it fits in place. */
            memmove(mb->val, s.ptr, s.len);
            mb->len = s.len;
        } else {
            if (v != APS_ASM_OK)
                return v;
            describe(a, "%s appends to member \"%s\", which is neither a string nor null",
                     delta_name(kind), field);
            return APS_ASM_E_FIELD_TYPE;
        }
        mb->text = 1;
    }
    b->append_kind = kind;
    b->append_at = at;
    return APS_ASM_OK;
}

static void describe_message(aps_assembler *a, const aps_asm_message *m, const char *what)
{
    describe(a, "%s (message \"%.*s\")", what, clip(m->id.len), m->id.ptr ? m->id.ptr : "");
}

/* Checks that ev->index is the open block; describes the violation if not. */
static verdict check_open_block(aps_assembler *a, const aps_asm_message *m, const aps_asm_event *ev,
                                const char *what)
{
    char buf[160];
    if (m->block_open && ev->index == m->nblocks - 1)
        return APS_ASM_OK;
    if (ev->index >= m->nblocks) {
        snprintf(buf, sizeof buf, "%s for block %llu, which was never started", what,
                 (unsigned long long)ev->index);
        describe_message(a, m, buf);
        return APS_ASM_E_BLOCK_NOT_STARTED;
    }
    snprintf(buf, sizeof buf, "%s for block %llu, which is already finished", what,
             (unsigned long long)ev->index);
    describe_message(a, m, buf);
    return APS_ASM_E_BLOCK_FINISHED;
}

static verdict block_start(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    char buf[160];
    asm_block *b;
    verdict v;
    if (m->block_open) {
        snprintf(buf, sizeof buf, "content-block-start for block %llu while block %llu is open",
                 (unsigned long long)ev->index, (unsigned long long)(m->nblocks - 1));
        describe_message(a, m, buf);
        return APS_ASM_E_BLOCK_OPEN;
    }
    if (ev->index != m->nblocks) {
        snprintf(buf, sizeof buf, "content-block-start for block %llu, expected block %llu",
                 (unsigned long long)ev->index, (unsigned long long)m->nblocks);
        describe_message(a, m, buf);
        return APS_ASM_E_BLOCK_INDEX;
    }
    if (m->nblocks == m->blocks_cap) {
        size_t cap = m->blocks_cap ? m->blocks_cap * 2 : 4;
        asm_block *blocks;
        if (cap > SIZE_MAX / sizeof *blocks)
            return APS_ASM_E_LIMIT;
        v = item_alloc(a, &m->c, cap * sizeof *blocks, (void **)&blocks);
        if (v != APS_ASM_OK)
            goto fail;
        if (m->nblocks)
            memcpy(blocks, m->blocks, m->nblocks * sizeof *blocks);
        item_free(a, &m->c, m->blocks, m->blocks_cap * sizeof *m->blocks);
        m->blocks = blocks;
        m->blocks_cap = cap;
    }
    b = &m->blocks[m->nblocks++];
    memset(b, 0, sizeof *b);
    m->block_open = 1;
    v = block_merge(a, &m->c, b, ev->content);
    if (v == APS_ASM_E_NOT_OBJECT)
        describe_message(a, m, "content-block-start whose content is not an object");
fail:
    if (v == APS_ASM_E_LIMIT)
        describe_message(a, m, "message exceeds the assembler's size limits");
    return v;
}

/* Whether a finished block of this type may be the tool_call block of a tool. */
static int linkable(aps_slice type)
{
    static const char *const never[] = { "text", "reasoning", "image", "audio", "video",
                                         "file", "non_standard", "server_tool_result" };
    size_t i;
    for (i = 0; i < sizeof never / sizeof never[0]; i++)
        if (slice_is(type, never[i]))
            return 0;
    return 1;
}

/* Remembers the finished block `content` under its `id`, if it may be a tool call's. */
static verdict link_block(aps_assembler *a, aps_json_raw content)
{
    aps_json_raw type_raw, id_raw;
    aps_slice type, id;
    size_t key_len;
    asm_link *l;
    aps_asm_item *old;
    verdict v;
    aps_status st = aps_json_raw_member(content, "id", 2, &a->scratch, &id_raw, NULL);
    if (st == APS_OK)
        st = aps_json_raw_member(content, "type", 4, &a->scratch, &type_raw, NULL);
    if (st != APS_OK)
        return st == APS_E_NOMEM || st == APS_E_LIMIT ? APS_ASM_E_NOMEM : APS_ASM_OK;
    if (!raw_string(a, type_raw, &type, &v) || !linkable(type))
        return v;
    if (!raw_string(a, id_raw, &id, &v))
        return v;
    if (content.len > a->opt.max_link_bytes)
        return APS_ASM_OK;
    if (id_key(a, 'L', id, &key_len) != APS_OK)
        return APS_ASM_E_NOMEM;
    old = map_find(&a->map, hash_bytes(a->seed, a->key, key_len), a->key, key_len);
    if (old != NULL)
        forget(a, &a->links, old);
    if (content.len > SIZE_MAX - sizeof *l - key_len)
        return APS_ASM_OK;
    l = (asm_link *)item_new(a, ITEM_LINK, sizeof *l + content.len, key_len);
    if (l == NULL)
        return APS_ASM_E_NOMEM;
    /* The JSON sits right after the struct; item_new put the key after it. */
    l->json = (const char *)(l + 1);
    memcpy((char *)(l + 1), content.ptr, content.len);
    l->len = content.len;
    if (map_insert(a, &l->item) != APS_OK) {
        mem_free(a, l, l->item.size);
        return APS_ASM_E_NOMEM;
    }
    list_push(&a->links, &l->item);
    while (a->links.bytes > a->opt.max_link_bytes)
        forget(a, &a->links, a->links.head);
    return APS_ASM_OK;
}

static verdict block_finish(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    asm_block *b;
    verdict v = check_open_block(a, m, ev, "content-block-finish");
    if (v != APS_ASM_OK)
        return v;
    if (aps_json_raw_kind(ev->content) != APS_JSON_OBJECT) {
        describe_message(a, m, "content-block-finish whose content is not an object");
        return APS_ASM_E_NOT_OBJECT;
    }
    b = &m->blocks[m->nblocks - 1];
    v = item_dup(a, &m->c, ev->content.ptr, ev->content.len, &b->final);
    if (v == APS_ASM_E_LIMIT)
        describe_message(a, m, "message exceeds the assembler's size limits");
    if (v != APS_ASM_OK)
        return v;
    b->final_len = ev->content.len;
    block_free_members(a, &m->c, b);
    m->block_open = 0;
    return link_block(a, ev->content);
}

static verdict block_delta(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    asm_block *b;
    asm_member *mb;
    verdict v;
    char buf[160];
    if (!m->block_open || ev->index != m->nblocks - 1)
        return check_open_block(a, m, ev, "content-block-delta");
    b = &m->blocks[m->nblocks - 1];
    switch (ev->delta) {
    case APS_ASM_DELTA_TEXT:
    case APS_ASM_DELTA_REASONING:
    case APS_ASM_DELTA_DATA:
    case APS_ASM_DELTA_TOOL_CALL:
        break;
    case APS_ASM_DELTA_BLOCK:
        v = block_merge(a, &m->c, b, ev->fields);
        if (v == APS_ASM_E_NOT_OBJECT)
            describe_message(a, m, "block-delta whose fields are not an object");
        else if (v == APS_ASM_E_LIMIT)
            describe_message(a, m, "message exceeds the assembler's size limits");
        return v;
    default:
        return APS_ASM_OK; /* unknown delta types are skipped, as the spec asks */
    }
    if (b->append_kind != ev->delta) {
        if (!delta_fits(ev->delta, b->cls)) {
            snprintf(buf, sizeof buf, "%s on block %llu, whose type does not take it",
                     delta_name(ev->delta), (unsigned long long)ev->index);
            describe_message(a, m, buf);
            return APS_ASM_E_DELTA_MISMATCH;
        }
        v = append_target(a, &m->c, b, ev->delta);
        if (v == APS_ASM_E_LIMIT)
            describe_message(a, m, "message exceeds the assembler's size limits");
        if (v != APS_ASM_OK)
            return v;
    }
    mb = &b->mem[b->append_at];
    if (ev->text.len > mb->cap - mb->len) {
        if (ev->text.len > SIZE_MAX - mb->len)
            v = APS_ASM_E_LIMIT;
        else
            v = grow(a, &m->c, &mb->val, mb->len, &mb->cap, mb->len + ev->text.len);
        if (v == APS_ASM_E_LIMIT)
            describe_message(a, m, "message exceeds the assembler's size limits");
        if (v != APS_ASM_OK)
            return v;
    }
    if (ev->text.len) {
        memcpy(mb->val + mb->len, ev->text.ptr, ev->text.len);
        mb->len += ev->text.len;
    }
    m->hot = mb;
    m->hot_kind = ev->delta;
    m->hot_index = ev->index;
    if (a->cb.on_append)
        a->cb.on_append(a->cb.ctx, m, ev->index, ev->delta, ev->text);
    return APS_ASM_OK;
}

/* `p` when `take` is 1, `q` when 0, by arithmetic: compilers turn ?: on pointers into branches. */
static ASM_INLINE char *pick(size_t take, const char *p, const char *q)
{
    uintptr_t m = (uintptr_t)0 - (uintptr_t)take;
    return (char *)(((uintptr_t)p & m) | ((uintptr_t)q & ~m));
}

/*
 * Appends a token of 1 to 16 bytes at `dst`, which has 16 bytes of room,
 * with no branch on n: token lengths are random, and a mispredicted branch
 * costs more than this whole copy. Three steps, each writing with loads
 * that stay inside the token: bytes 0, n/2 and n-1 (all of a token shorter
 * than 4), then 4-byte words at both ends (all of one shorter than 8), then
 * 8-byte words at both ends. A step too wide for n reads a block of zeros
 * and writes to `sink`, scratch the assembler owns; each later step
 * rewrites bytes of the earlier ones with the same values.
 */
static ASM_INLINE void copy_token(char *dst, const char *src, size_t n, char *sink)
{
    static const char zeros[16];
    size_t w4 = n >= 4, w8 = n >= 8;
    const char *s4 = pick(w4, src, zeros), *s8 = pick(w8, src, zeros);
    char *d4 = pick(w4, dst, sink), *d8 = pick(w8, dst, sink);
    size_t e4 = (n - 4) & (0 - w4), e8 = (n - 8) & (0 - w8);
    uint32_t x4 = aps_scan_load32(s4), y4 = aps_scan_load32(s4 + e4);
    uint64_t x8 = aps_scan_load64(s8), y8 = aps_scan_load64(s8 + e8);
    dst[0] = src[0];
    dst[n >> 1] = src[n >> 1];
    dst[n - 1] = src[n - 1];
    memcpy(d4, &x4, 4);
    memcpy(d4 + e4, &y4, 4);
    memcpy(d8, &x8, 8);
    memcpy(d8 + e8, &y8, 8);
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

/*
 * The open message of the event's place when the caches have it, else
 * NULL: the message of the previous event (a token stream), or one of
 * a->recent (streams interleaved). This spares most events building the
 * key, hashing it and probing the map.
 */
static aps_asm_message *cached_message(aps_assembler *a, const aps_asm_event *ev)
{
    aps_asm_message **set;
    if (a->last != NULL && same_place(&a->last->c, ev, 0))
        return a->last;
    set = place_set(a, ev->ns, ev->ns_len, ev->node.len);
    if (set[0] != NULL && same_place(&set[0]->c, ev, 0))
        return a->last = set[0];
    if (set[1] != NULL && same_place(&set[1]->c, ev, 0))
        return a->last = set[1];
    return NULL;
}

/* Makes open message `m` the last one, and puts it first in its set of a->recent. */
static void remember(aps_assembler *a, aps_asm_message *m)
{
    aps_asm_message **set = place_set(a, m->c.ns, m->c.ns_len, m->c.node.len);
    a->last = m;
    if (set[0] != m) {
        set[1] = set[0];
        set[0] = m;
    }
}

static aps_status message_start(aps_assembler *a, const aps_asm_event *ev, aps_asm_item *it,
                                size_t key_len)
{
    aps_asm_message *m;
    aps_slice *s[2];
    aps_json_raw *r[1];
    verdict v;
    aps_status st = APS_OK;
    if (it != NULL && it->kind == ITEM_MESSAGE) {
        aps_asm_message *old = (aps_asm_message *)(void *)it;
        char buf[160];
        snprintf(buf, sizeof buf, "message-start of \"%.*s\" while this message is open",
                 clip(ev->id.len), ev->id.ptr ? ev->id.ptr : "");
        describe_message(a, old, buf);
        st = message_fail(a, old, ev, APS_ASM_E_MESSAGE_OPEN);
        if (st != APS_OK)
            return st;
    }
    if (it != NULL)
        forget(a, &a->closed, it); /* a new message replaces the tombstone */
    if (a->open_messages >= a->opt.max_open_messages) {
        describe(a, "message-start of \"%.*s\": more than %zu messages open", clip(ev->id.len),
                 ev->id.ptr ? ev->id.ptr : "", a->opt.max_open_messages);
        report(a, ev, APS_ASM_E_LIMIT);
        return poison_key(a, key_len);
    }
    m = (aps_asm_message *)(void *)item_new(a, ITEM_MESSAGE, sizeof *m, key_len);
    if (m == NULL)
        return APS_E_NOMEM;
    if (map_insert(a, &m->item) != APS_OK) {
        mem_free(a, m, m->item.size);
        return APS_E_NOMEM;
    }
    list_push(&a->open, &m->item);
    a->open_messages++;
    m->id = ev->id;
    m->role = ev->role;
    m->metadata = ev->metadata;
    s[0] = &m->id;
    s[1] = &m->role;
    r[0] = &m->metadata;
    v = copy_head(a, &m->c, ev, s, 2, r, 1);
    if (v != APS_ASM_OK) {
        m->id.ptr = NULL; /* the copy failed: nothing to show but the state */
        m->id.len = m->role.len = m->metadata.len = 0;
        m->role.ptr = NULL;
        m->metadata.ptr = NULL;
        describe(a, "message-start: the message exceeds the assembler's size limits");
        return message_fail(a, m, ev, v);
    }
    remember(a, m);
    return APS_OK;
}

/* An event for a key with no open item: tombstones say why. */
static aps_status no_item(aps_assembler *a, const aps_asm_event *ev, aps_asm_item *it,
                          size_t key_len, verdict finished, verdict unknown, const char *what)
{
    if (it != NULL) {
        if (it->flags & ITEM_POISONED)
            return APS_OK;
        describe(a, "%s after the %s finished or failed", what,
                 finished == APS_ASM_E_MESSAGE_FINISHED ? "message" : "tool");
        it->flags |= ITEM_POISONED;
        report(a, ev, finished);
        return APS_OK;
    }
    describe(a, "%s with no %s started", what,
             unknown == APS_ASM_E_NO_MESSAGE ? "message" : "tool");
    report(a, ev, unknown);
    return poison_key(a, key_len);
}

static const char *const event_names[] = {
    "event", "message-start", "content-block-start", "content-block-delta",
    "content-block-finish", "message-finish", "error", "tool-started", "tool-output-delta",
    "tool-finished", "tool-error",
};

static aps_status message_event(aps_assembler *a, const aps_asm_event *ev)
{
    aps_asm_message *m = ev->kind == APS_ASM_MESSAGE_START ? NULL : cached_message(a, ev);
    aps_asm_item *it = NULL;
    size_t key_len = 0;
    verdict v;
    if (m == NULL) {
        if (message_key(a, ev, &key_len) != APS_OK)
            return APS_E_NOMEM;
        it = map_find(&a->map, hash_bytes(a->seed, a->key, key_len), a->key, key_len);
        if (ev->kind == APS_ASM_MESSAGE_START)
            return message_start(a, ev, it, key_len);
        if (it == NULL || it->kind != ITEM_MESSAGE)
            return no_item(a, ev, it, key_len, APS_ASM_E_MESSAGE_FINISHED, APS_ASM_E_NO_MESSAGE,
                           event_names[ev->kind]);
        m = (aps_asm_message *)(void *)it;
        remember(a, m);
    }
    m->hot = NULL;
    switch (ev->kind) {
    case APS_ASM_BLOCK_DELTA:
        v = block_delta(a, m, ev);
        break;
    case APS_ASM_BLOCK_START:
        v = block_start(a, m, ev);
        break;
    case APS_ASM_BLOCK_FINISH:
        v = block_finish(a, m, ev);
        break;
    case APS_ASM_MESSAGE_FINISH:
        if (m->block_open) {
            char buf[160];
            snprintf(buf, sizeof buf, "message-finish while block %llu is open",
                     (unsigned long long)(m->nblocks - 1));
            describe_message(a, m, buf);
            v = APS_ASM_E_FINISH_BLOCK_OPEN;
            break;
        }
        v = copy_tail_raw(a, &m->c, ev->usage, &m->usage);
        if (v == APS_ASM_OK) {
            m->c.state = APS_ASM_FINISHED;
            message_close(a, m, 0);
            return APS_OK;
        }
        describe_message(a, m, "message-finish: the usage exceeds the assembler's size limits");
        break;
    default: /* APS_ASM_MESSAGE_ERROR */
        v = copy_error(a, &m->c, ev);
        if (v == APS_ASM_OK) {
            message_close(a, m, 0);
            return APS_OK;
        }
        describe_message(a, m, "error: its message exceeds the assembler's size limits");
        break;
    }
    if (v == APS_ASM_OK)
        return APS_OK;
    return message_fail(a, m, ev, v);
}

/* ---- tools ---------------------------------------------------------------- */

static aps_status tool_event(aps_assembler *a, const aps_asm_event *ev)
{
    size_t key_len;
    aps_asm_item *it;
    aps_asm_tool *t;
    verdict v = APS_ASM_OK;
    if (id_key(a, 'T', ev->tool_call_id, &key_len) != APS_OK)
        return APS_E_NOMEM;
    it = map_find(&a->map, hash_bytes(a->seed, a->key, key_len), a->key, key_len);
    if (ev->kind == APS_ASM_TOOL_STARTED) {
        aps_slice *s[2];
        aps_json_raw *r[1];
        if (it != NULL && it->kind == ITEM_TOOL) {
            aps_status st;
            describe(a, "tool-started for toolCallId \"%.*s\", which is already running",
                     clip(ev->tool_call_id.len), ev->tool_call_id.ptr);
            st = tool_fail(a, (aps_asm_tool *)(void *)it, ev, APS_ASM_E_TOOL_STARTED);
            if (st != APS_OK)
                return st;
            forget(a, &a->closed, it);
            it = NULL;
        }
        if (it != NULL)
            return no_item(a, ev, it, key_len, APS_ASM_E_TOOL_FINISHED, APS_ASM_E_TOOL_UNKNOWN,
                           "tool-started");
        if (a->open_tools >= a->opt.max_open_tools) {
            describe(a, "tool-started for \"%.*s\": more than %zu tools running",
                     clip(ev->tool_call_id.len), ev->tool_call_id.ptr, a->opt.max_open_tools);
            report(a, ev, APS_ASM_E_LIMIT);
            return poison_key(a, key_len);
        }
        t = (aps_asm_tool *)(void *)item_new(a, ITEM_TOOL, sizeof *t, key_len);
        if (t == NULL)
            return APS_E_NOMEM;
        if (map_insert(a, &t->item) != APS_OK) {
            mem_free(a, t, t->item.size);
            return APS_E_NOMEM;
        }
        list_push(&a->open, &t->item);
        a->open_tools++;
        t->id = ev->tool_call_id;
        t->name = ev->tool_name;
        t->input = ev->input;
        s[0] = &t->id;
        s[1] = &t->name;
        r[0] = &t->input;
        v = copy_head(a, &t->c, ev, s, 2, r, 1);
        if (v != APS_ASM_OK) {
            /* Keep the id (it is the key) for the report; drop what did not fit. */
            t->id.ptr = t->item.key + 1;
            t->id.len = t->item.key_len - 1;
            t->name.ptr = NULL;
            t->name.len = t->input.len = 0;
            t->input.ptr = NULL;
            describe(a, "tool-started: the tool exceeds the assembler's size limits");
            return tool_fail(a, t, ev, v);
        }
        return APS_OK;
    }
    if (it == NULL || it->kind != ITEM_TOOL)
        return no_item(a, ev, it, key_len, APS_ASM_E_TOOL_FINISHED, APS_ASM_E_TOOL_UNKNOWN,
                       event_names[ev->kind]);
    t = (aps_asm_tool *)(void *)it;
    switch (ev->kind) {
    case APS_ASM_TOOL_OUTPUT_DELTA:
        if (ev->text.len > t->out_cap - t->out_len) {
            if (ev->text.len > SIZE_MAX - t->out_len)
                v = APS_ASM_E_LIMIT;
            else
                v = grow(a, &t->c, &t->out, t->out_len, &t->out_cap, t->out_len + ev->text.len);
            if (v != APS_ASM_OK)
                break;
        }
        if (ev->text.len)
            memcpy(t->out + t->out_len, ev->text.ptr, ev->text.len);
        t->out_len += ev->text.len;
        t->has_delta = 1;
        return APS_OK;
    case APS_ASM_TOOL_FINISHED:
        v = copy_tail_raw(a, &t->c, ev->output, &t->output);
        if (v != APS_ASM_OK)
            break;
        t->c.state = APS_ASM_FINISHED;
        tool_close(a, t, 0);
        return APS_OK;
    default: /* APS_ASM_TOOL_ERROR */
        v = copy_error(a, &t->c, ev);
        if (v != APS_ASM_OK)
            break;
        tool_close(a, t, 0);
        return APS_OK;
    }
    describe(a, "%s: tool \"%.*s\" exceeds the assembler's size limits", event_names[ev->kind],
             clip(t->id.len), t->id.ptr);
    return tool_fail(a, t, ev, v);
}

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
    /* Per-assembler seed: keys chosen to collide in one process do not in another. */
    a->seed = (uint64_t)(uintptr_t)a * 0x9E3779B97F4A7C15ull;
}

static void free_list(aps_assembler *a, aps_asm_list *l)
{
    aps_asm_item *it = l->head, *next;
    for (; it != NULL; it = next) {
        next = it->next;
        if (it->kind == ITEM_MESSAGE)
            message_clear(a, (aps_asm_message *)(void *)it);
        else if (it->kind == ITEM_TOOL)
            tool_clear(a, (aps_asm_tool *)(void *)it);
        mem_free(a, it, it->size);
    }
    memset(l, 0, sizeof *l);
}

/* Frees every item; keeps the options, callbacks and scratch buffers. */
static void clear_items(aps_assembler *a)
{
    free_list(a, &a->open);
    free_list(a, &a->closed);
    free_list(a, &a->links);
    mem_free(a, a->map.slots, a->map.cap * sizeof *a->map.slots);
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
    mem_free(a, a->key, a->key_cap);
    a->key = NULL;
    a->key_cap = 0;
    aps_arena_deinit(&a->scratch);
}

void aps_asm_finish(aps_assembler *a)
{
    aps_asm_item *it;
    for (it = a->open.head; it != NULL; it = it->next) {
        if (it->kind == ITEM_MESSAGE) {
            if (a->cb.on_message_done)
                a->cb.on_message_done(a->cb.ctx, (aps_asm_message *)(void *)it);
        } else {
            aps_asm_tool *t = (aps_asm_tool *)(void *)it;
            size_t len;
            if (id_key(a, 'L', t->id, &len) == APS_OK)
                t->link = map_find(&a->map, hash_bytes(a->seed, a->key, len), a->key, len);
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
    if ((unsigned)ev->kind > (unsigned)APS_ASM_TOOL_ERROR)
        return 1;
    if ((ev->ns == NULL && ev->ns_len != 0) || bad_slice(ev->node))
        return 1;
    for (i = 0; i < ev->ns_len; i++)
        if (bad_slice(ev->ns[i]))
            return 1;
    switch (ev->kind) {
    case APS_ASM_MESSAGE_START:
        return bad_slice(ev->id) || bad_slice(ev->role) || bad_raw(ev->metadata);
    case APS_ASM_BLOCK_START:
    case APS_ASM_BLOCK_FINISH:
        return bad_raw(ev->content);
    case APS_ASM_BLOCK_DELTA:
        return bad_slice(ev->text) || bad_raw(ev->fields);
    case APS_ASM_MESSAGE_FINISH:
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
    if (ev->kind >= APS_ASM_TOOL_STARTED)
        st = tool_event(a, ev);
    else
        st = message_event(a, ev);
    if (st == APS_E_NOMEM)
        return aps_error_set(err, APS_E_NOMEM, (size_t)ev->position,
                             "out of memory while assembling the event at %llu",
                             (unsigned long long)ev->position);
    return st;
}

/* Whether `m` takes the event's text by the fast path: the event is the next delta of its hot member. */
static ASM_INLINE int takes_delta(const aps_asm_message *m, const aps_asm_event *ev)
{
    /* hot is set only while the block it belongs to is open, the last one */
    return m->hot != NULL && m->hot_kind == ev->delta && ev->index == m->hot_index && ev->fields.len == 0 &&
           ev->text.ptr != NULL;
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
 * The common case: a token of 1 to 16 bytes for `m`, which takes_delta,
 * and room for 16 in its member: no key, no lookup, no allocation, no
 * scratch, no call. Other lengths go to append_text.
 */
static ASM_INLINE aps_status append_token(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev,
                                          aps_error *err, int padded)
{
    asm_member *mb = m->hot;
    size_t n = ev->text.len;
    if (APS_SCAN_UNLIKELY(n - 1 >= 16 || mb->cap - mb->len < 16))
        return append_text(a, m, ev, err);
    if (padded)
        memcpy(mb->val + mb->len, ev->text.ptr, 16); /* the bytes past n are room */
    else
        copy_token(mb->val + mb->len, ev->text.ptr, n, a->sink);
    mb->len += n;
    return a->cb.on_append != NULL ? notify_append(a, m, ev) : APS_OK;
}

/*
 * A delta for another message than the last one's: streams interleaved.
 * a->recent, a small table by a hash of the place, spares most of them
 * building the key, hashing it and probing the map.
 */
static ASM_INLINE aps_status feed_delta(aps_assembler *a, const aps_asm_event *ev, aps_error *err, int padded)
{
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
    a->last = m;
    return append_token(a, m, ev, err, padded);
}

/* feed_delta for each promise: functions of their own, reached by tail calls. */
static ASM_NOINLINE aps_status feed_delta_padded(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    return feed_delta(a, ev, err, 1);
}

static ASM_NOINLINE aps_status feed_delta_plain(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    return feed_delta(a, ev, err, 0);
}

/*
 * The fast path for the message of the previous event, `padded` a
 * constant where it is inlined. Straight-line for places of at most one
 * segment (the usual "model_request:<uuid>", or the root); deeper places,
 * and everything else, leave by a tail call to feed_delta.
 */
static ASM_INLINE aps_status feed_last(aps_assembler *a, const aps_asm_event *ev, aps_error *err, int padded)
{
    aps_asm_message *m = a->last;
    if (ASM_LIKELY(m != NULL && m->c.ns_len <= 1 && ev->ns_len == m->c.ns_len && same_node(m->c.node, ev, padded) &&
                   (m->c.ns_len == 0 || (ev->ns != NULL && same_segment(m->c.ns[0], ev->ns[0], padded))) &&
                   takes_delta(m, ev)))
        return append_token(a, m, ev, err, padded);
    return padded ? feed_delta_padded(a, ev, err) : feed_delta_plain(a, ev, err);
}

/* feed_last without the padded promise, a function of its own, so that it keeps its registers to itself. */
static ASM_NOINLINE aps_status feed_last_plain(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    return feed_last(a, ev, err, 0);
}

/*
 * A token for the message of the previous event goes no further than
 * feed_last; any event leaves by a tail call.
 */
aps_status aps_asm_feed(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    if (ASM_LIKELY(a != NULL && ev != NULL && ev->kind == APS_ASM_BLOCK_DELTA))
        return a->opt.padded ? feed_last(a, ev, err, 1) : feed_last_plain(a, ev, err);
    return feed(a, ev, err);
}

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
 * refuses it.
 */
static ASM_INLINE int token_fits(const token_run *t, const aps_asm_event *ev, const char **seg, const char **node)
{
    if (ev->kind != APS_ASM_BLOCK_DELTA || ev->delta != t->kind || ev->index != t->index || ev->fields.len != 0 ||
        ev->text.ptr == NULL || ev->text.len - 1 >= 16 || ev->ns_len != 1 ||
        ev->node.len != t->node_len || ev->ns == NULL || ev->ns[0].len != t->seg_len ||
        (*seg = ev->ns[0].ptr) == NULL || (*node = ev->node.ptr) == NULL)
        return 0;
    return 1;
}

/* Appends the token of `ev`, which token_fits. */
static ASM_INLINE void token_append(token_run *t, const aps_asm_event *ev, char *sink, int padded)
{
    size_t n = ev->text.len; /* read before the copy, which might write over `ev` for all the compiler knows */
    if (padded)
        memcpy(t->val + t->len, ev->text.ptr, 16); /* the bytes past the token are room */
    else
        copy_token(t->val + t->len, ev->text.ptr, n, sink);
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
static ASM_INLINE size_t run_tokens(token_run *t, const aps_asm_event *evs, size_t n, char *sink, int padded)
{
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
        token_append(&r, &evs[i], sink, padded);
    }
    t->len = r.len;
    return i;
}

static ASM_NOINLINE size_t run_tokens_padded(token_run *t, const aps_asm_event *evs, size_t n, char *sink)
{
    return run_tokens(t, evs, n, sink, 1);
}

static ASM_NOINLINE size_t run_tokens_plain(token_run *t, const aps_asm_event *evs, size_t n, char *sink)
{
    return run_tokens(t, evs, n, sink, 0);
}

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
    took = a->opt.padded ? run_tokens_padded(&t, evs, n, a->sink) : run_tokens_plain(&t, evs, n, a->sink);
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

/* ---- accessors ------------------------------------------------------------ */

aps_slice aps_asm_message_id(const aps_asm_message *m) { return m->id; }
aps_slice aps_asm_message_role(const aps_asm_message *m) { return m->role; }
aps_slice aps_asm_message_node(const aps_asm_message *m) { return m->c.node; }
aps_json_raw aps_asm_message_metadata(const aps_asm_message *m) { return m->metadata; }
aps_json_raw aps_asm_message_usage(const aps_asm_message *m) { return m->usage; }
aps_asm_state aps_asm_message_state(const aps_asm_message *m) { return m->c.state; }
size_t aps_asm_message_block_count(const aps_asm_message *m) { return m->nblocks; }

size_t aps_asm_message_namespace(const aps_asm_message *m, const aps_slice **segs)
{
    *segs = m->c.ns;
    return m->c.ns_len;
}

static int common_error(const asm_common *c, aps_slice *message, aps_slice *code)
{
    if (c->state != APS_ASM_ERROR)
        return 0;
    if (message)
        *message = c->err_message;
    if (code)
        *code = c->err_code;
    return 1;
}

int aps_asm_message_error(const aps_asm_message *m, aps_slice *message, aps_slice *code)
{
    return common_error(&m->c, message, code);
}

int aps_asm_message_block_final(const aps_asm_message *m, size_t i, aps_json_raw *out)
{
    if (i >= m->nblocks || m->blocks[i].final == NULL)
        return 0;
    if (out) {
        out->ptr = m->blocks[i].final;
        out->len = m->blocks[i].final_len;
    }
    return 1;
}

void aps_asm_message_write_block(const aps_asm_message *m, size_t i, aps_json_writer *w)
{
    const asm_block *b;
    size_t k;
    if (i >= m->nblocks) {
        aps_json_write_null(w);
        return;
    }
    b = &m->blocks[i];
    if (b->final != NULL) {
        aps_json_raw raw;
        raw.ptr = b->final;
        raw.len = b->final_len;
        aps_json_write_raw(w, raw);
        return;
    }
    aps_json_write_object_begin(w);
    for (k = 0; k < b->n; k++) {
        aps_json_write_key(w, b->mem[k].key, b->mem[k].key_len);
        if (b->mem[k].text) {
            /* An appended member that received only empty text has no buffer yet. */
            aps_json_write_string(w, b->mem[k].val ? b->mem[k].val : "", b->mem[k].len);
        } else {
            aps_json_raw raw;
            raw.ptr = b->mem[k].val;
            raw.len = b->mem[k].len;
            aps_json_write_raw(w, raw);
        }
    }
    aps_json_write_object_end(w);
}

static void write_slice_or_null(aps_json_writer *w, aps_slice s)
{
    if (s.ptr == NULL)
        aps_json_write_null(w);
    else
        aps_json_write_string(w, s.ptr, s.len);
}

static void write_raw_or_null(aps_json_writer *w, aps_json_raw r)
{
    if (r.ptr == NULL)
        aps_json_write_null(w);
    else
        aps_json_write_raw(w, r);
}

#define WRITE_KEY(w, lit) aps_json_write_key((w), (lit), sizeof(lit) - 1)

static void write_place(aps_json_writer *w, const asm_common *c)
{
    size_t i;
    WRITE_KEY(w, "namespace");
    aps_json_write_array_begin(w);
    for (i = 0; i < c->ns_len; i++)
        aps_json_write_string(w, c->ns[i].ptr, c->ns[i].len);
    aps_json_write_array_end(w);
    WRITE_KEY(w, "node");
    write_slice_or_null(w, c->node);
}

static void write_error(aps_json_writer *w, const asm_common *c)
{
    WRITE_KEY(w, "error");
    if (c->state != APS_ASM_ERROR) {
        aps_json_write_null(w);
        return;
    }
    aps_json_write_object_begin(w);
    WRITE_KEY(w, "message");
    write_slice_or_null(w, c->err_message);
    WRITE_KEY(w, "code");
    write_slice_or_null(w, c->err_code);
    aps_json_write_object_end(w);
}

void aps_asm_message_write(const aps_asm_message *m, aps_json_writer *w)
{
    static const char *const status[] = { "open", "finished", "error" };
    const char *s = status[m->c.state];
    size_t i;
    aps_json_write_object_begin(w);
    WRITE_KEY(w, "kind");
    aps_json_write_string(w, "message", 7);
    WRITE_KEY(w, "id");
    write_slice_or_null(w, m->id);
    write_place(w, &m->c);
    WRITE_KEY(w, "role");
    write_slice_or_null(w, m->role);
    WRITE_KEY(w, "metadata");
    write_raw_or_null(w, m->metadata);
    WRITE_KEY(w, "status");
    aps_json_write_string(w, s, strlen(s));
    WRITE_KEY(w, "content");
    aps_json_write_array_begin(w);
    for (i = 0; i < m->nblocks; i++)
        aps_asm_message_write_block(m, i, w);
    aps_json_write_array_end(w);
    WRITE_KEY(w, "usage");
    write_raw_or_null(w, m->usage);
    write_error(w, &m->c);
    aps_json_write_object_end(w);
}

aps_slice aps_asm_tool_call_id(const aps_asm_tool *t) { return t->id; }
aps_slice aps_asm_tool_node(const aps_asm_tool *t) { return t->c.node; }
aps_slice aps_asm_tool_name(const aps_asm_tool *t) { return t->name; }
aps_json_raw aps_asm_tool_input(const aps_asm_tool *t) { return t->input; }
aps_json_raw aps_asm_tool_output(const aps_asm_tool *t) { return t->output; }
aps_asm_state aps_asm_tool_state(const aps_asm_tool *t) { return t->c.state; }

size_t aps_asm_tool_namespace(const aps_asm_tool *t, const aps_slice **segs)
{
    *segs = t->c.ns;
    return t->c.ns_len;
}

int aps_asm_tool_output_delta(const aps_asm_tool *t, aps_slice *out)
{
    if (!t->has_delta)
        return 0;
    if (out) {
        out->ptr = t->out_len ? t->out : "";
        out->len = t->out_len;
    }
    return 1;
}

int aps_asm_tool_error(const aps_asm_tool *t, aps_slice *message, aps_slice *code)
{
    return common_error(&t->c, message, code);
}

aps_json_raw aps_asm_tool_call_block(const aps_asm_tool *t)
{
    aps_json_raw r = { NULL, 0 };
    if (t->link != NULL) {
        const asm_link *l = (const asm_link *)(const void *)t->link;
        r.ptr = l->json;
        r.len = l->len;
    }
    return r;
}

void aps_asm_tool_write(const aps_asm_tool *t, aps_json_writer *w)
{
    static const char *const status[] = { "started", "finished", "error" };
    const char *s = status[t->c.state];
    aps_slice out;
    aps_json_write_object_begin(w);
    WRITE_KEY(w, "kind");
    aps_json_write_string(w, "tool", 4);
    WRITE_KEY(w, "toolCallId");
    write_slice_or_null(w, t->id);
    write_place(w, &t->c);
    WRITE_KEY(w, "toolName");
    write_slice_or_null(w, t->name);
    WRITE_KEY(w, "input");
    write_raw_or_null(w, t->input);
    WRITE_KEY(w, "status");
    aps_json_write_string(w, s, strlen(s));
    WRITE_KEY(w, "outputDelta");
    if (aps_asm_tool_output_delta(t, &out))
        aps_json_write_string(w, out.ptr, out.len);
    else
        aps_json_write_null(w);
    WRITE_KEY(w, "output");
    write_raw_or_null(w, t->output);
    write_error(w, &t->c);
    aps_json_write_object_end(w);
}
