/*
 * assemble_store.c - the assembler's items (see assemble_internal.h): the memory
 * charged to them, their keys and the map that finds them, the lists of
 * open and closed ones, and the violations reported on them.
 *
 * Every message, tool, tombstone and link is an "item" with a byte-string
 * key in one hash map (linear probing, backward-shift deletion):
 *   'M' u32 nseg (u32 len, bytes)* node 'R' sub
 *                                         -- a message, or its tombstone; sub
 *                                            is "" in strict mode, else the
 *                                            message's run id, else its id
 *   'P' u32 nseg (u32 len, bytes)* node   -- a place: its current message
 *   'T' id                                -- a tool, or its tombstone
 *   'L' id                                -- a finished tool-call block
 * A message or tool becomes its own tombstone when it closes (its contents
 * are freed, the struct and key stay), so closing never allocates.
 */
#include "assemble_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- memory ------------------------------------------------------------ */

static void *mem_alloc(const aps_assembler *a, size_t n)
{
    if (n == 0)
        n = 1;
    return a->allocator.alloc ? a->allocator.alloc(a->allocator.ctx, n) : malloc(n);
}

void aps_asm_priv_mem_free(const aps_assembler *a, void *p, size_t n)
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
verdict aps_asm_priv_item_alloc(aps_assembler *a, asm_common *c, size_t n, void **out)
{
    if (n > a->opt.max_item_bytes || c->bytes > a->opt.max_item_bytes - n)
        return APS_ASM_E_LIMIT;
    *out = mem_alloc(a, n);
    if (*out == NULL)
        return APS_ASM_E_NOMEM;
    c->bytes += n;
    return APS_ASM_OK;
}

void aps_asm_priv_item_free(aps_assembler *a, asm_common *c, void *p, size_t n)
{
    if (p == NULL)
        return;
    aps_asm_priv_mem_free(a, p, n);
    c->bytes -= n;
}

verdict aps_asm_priv_item_dup(aps_assembler *a, asm_common *c, const char *src, size_t n, char **out)
{
    void *p;
    verdict v = aps_asm_priv_item_alloc(a, c, n, &p);
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
verdict aps_asm_priv_grow(aps_assembler *a, asm_common *c, char **buf, size_t len, size_t *cap,
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
        aps_asm_priv_mem_free(a, *buf, *cap);
    }
    c->bytes = others + ncap;
    *buf = p;
    *cap = ncap;
    return APS_ASM_OK;
}

/* ---- keys and the map --------------------------------------------------- */

/* A word at a time, each mixed by a multiply (splitmix64's constants); seeded per assembler. */
uint64_t aps_asm_priv_hash_bytes(uint64_t seed, const char *p, size_t n)
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
    aps_asm_priv_mem_free(a, a->key, a->key_cap);
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
aps_status aps_asm_priv_message_key(aps_assembler *a, const aps_asm_event *ev, size_t *len)
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

/* Appends 'R' + `sub` to the key in a->key, `*len` bytes long so far. */
aps_status aps_asm_priv_key_sub(aps_assembler *a, aps_slice sub, size_t *len)
{
    if (sub.len > SIZE_MAX / 2 - *len || key_reserve(a, *len + 1 + sub.len) != APS_OK)
        return APS_E_NOMEM;
    a->key[*len] = 'R';
    if (sub.len)
        memcpy(a->key + *len + 1, sub.ptr, sub.len);
    *len += 1 + sub.len;
    return APS_OK;
}

/* Writes `prefix` + `id` into a->key. */
aps_status aps_asm_priv_id_key(aps_assembler *a, char prefix, aps_slice id, size_t *len)
{
    if (id.len > SIZE_MAX - 1 || key_reserve(a, id.len + 1) != APS_OK)
        return APS_E_NOMEM;
    a->key[0] = prefix;
    if (id.len)
        memcpy(a->key + 1, id.ptr, id.len);
    *len = id.len + 1;
    return APS_OK;
}

aps_asm_item *aps_asm_priv_map_find(const aps_asm_map *m, uint64_t h, const char *key, size_t len)
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

aps_status aps_asm_priv_map_insert(aps_assembler *a, aps_asm_item *it)
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
        aps_asm_priv_mem_free(a, m->slots, m->cap * sizeof *m->slots);
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

void aps_asm_priv_list_push(aps_asm_list *l, aps_asm_item *it)
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

void aps_asm_priv_list_unlink(aps_asm_list *l, aps_asm_item *it)
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
aps_asm_item *aps_asm_priv_item_new(aps_assembler *a, int kind, size_t size, size_t key_len)
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
    it->hash = aps_asm_priv_hash_bytes(a->seed, key, key_len);
    it->size = size + key_len;
    return it;
}

/* Removes a tombstone or a link from the map and its list, and frees it. */
void aps_asm_priv_forget(aps_assembler *a, aps_asm_list *l, aps_asm_item *it)
{
    map_remove(&a->map, it);
    aps_asm_priv_list_unlink(l, it);
    aps_asm_priv_mem_free(a, it, it->size);
}

void aps_asm_priv_closed_push(aps_assembler *a, aps_asm_item *it)
{
    aps_asm_priv_list_push(&a->closed, it);
    while (a->closed.count > a->opt.max_closed)
        aps_asm_priv_forget(a, &a->closed, a->closed.head);
}

/* Remembers the key in a->key as failed, so its later events are ignored. */
aps_status aps_asm_priv_poison_key(aps_assembler *a, size_t key_len)
{
    aps_asm_item *it = aps_asm_priv_item_new(a, ITEM_CLOSED, sizeof(aps_asm_item), key_len);
    if (it == NULL)
        return APS_E_NOMEM;
    it->flags = ITEM_POISONED;
    if (aps_asm_priv_map_insert(a, it) != APS_OK) {
        aps_asm_priv_mem_free(a, it, it->size);
        return APS_E_NOMEM;
    }
    aps_asm_priv_closed_push(a, it);
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
    "legacy-delta",
};

const char *aps_asm_violation_name(aps_asm_violation v)
{
    if ((size_t)v >= sizeof violation_names / sizeof violation_names[0])
        return "unknown";
    return violation_names[v];
}

/* Formats the violation text into a->text. */

void aps_asm_priv_describe(aps_assembler *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->text, sizeof a->text, fmt, ap);
    va_end(ap);
}

int aps_asm_priv_clip(size_t len)
{
    return len > 64 ? 64 : (int)len;
}

/*
 * Reports the violation in a->text (not for APS_ASM_E_NOMEM, which is
 * returned instead), at the position of `ev`, or when NULL of the event being fed.
 */
void aps_asm_priv_report(aps_assembler *a, const aps_asm_event *ev, verdict v)
{
    if (v == APS_ASM_E_NOMEM)
        return;
    a->violations++;
    if (a->cb.on_violation)
        a->cb.on_violation(a->cb.ctx, ev != NULL ? ev->position : a->position, v, a->text);
}

void aps_asm_priv_set_failure(asm_common *c, const aps_assembler *a, verdict v)
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
