/*
 * coalesce.c - merging runs of appending deltas for producers (aps/asm.h).
 *
 * The pending run is a delta whose namespace, node and text are copies in
 * the coalescer's buffers, because the events it came from are gone once
 * push returns. When a buffer cannot be had, events pass through unmerged:
 * that is lossless too, so push never fails for memory.
 */
#include "aps/asm.h"

#include <stdlib.h>
#include <string.h>

static void *mem_alloc(const aps_allocator *a, size_t n)
{
    return a->alloc ? a->alloc(a->ctx, n) : malloc(n);
}

static void mem_free(const aps_allocator *a, void *p, size_t n)
{
    if (p == NULL)
        return;
    if (a->alloc)
        a->free(a->ctx, p, n);
    else
        free(p);
}

void aps_asm_coalescer_init(aps_asm_coalescer *c, const aps_asm_coalesce_options *options,
                            aps_asm_emit_fn emit, void *ctx)
{
    memset(c, 0, sizeof *c);
    if (options != NULL) {
        c->allocator = options->allocator;
        c->max_events = options->max_events;
        c->max_bytes = options->max_bytes;
    }
    if (c->max_events == 0)
        c->max_events = APS_ASM_COALESCE_DEFAULT_EVENTS;
    if (c->max_bytes == 0)
        c->max_bytes = APS_ASM_COALESCE_DEFAULT_BYTES;
    c->emit = emit;
    c->ctx = ctx;
    c->pending.kind = APS_ASM_OTHER;
}

void aps_asm_coalescer_deinit(aps_asm_coalescer *c)
{
    if (c == NULL)
        return;
    mem_free(&c->allocator, c->text, c->text_cap);
    mem_free(&c->allocator, c->segs, c->segs_cap * sizeof *c->segs);
    mem_free(&c->allocator, c->names, c->names_cap);
    c->text = c->names = NULL;
    c->segs = NULL;
    c->text_cap = c->segs_cap = c->names_cap = 0;
    c->pending.kind = APS_ASM_OTHER;
}

/* Deltas that append text; one with a run id or content-shaped passes through as it is (it is rare). */
static int mergeable(const aps_asm_event *ev)
{
    return ev->kind == APS_ASM_BLOCK_DELTA && ev->run_id.ptr == NULL && ev->content.ptr == NULL &&
           (ev->delta == APS_ASM_DELTA_TEXT || ev->delta == APS_ASM_DELTA_REASONING ||
            ev->delta == APS_ASM_DELTA_DATA || ev->delta == APS_ASM_DELTA_TOOL_CALL);
}

static int same_slice(aps_slice a, aps_slice b)
{
    return a.len == b.len && (a.ptr == NULL) == (b.ptr == NULL) &&
           (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* Whether `ev` continues the pending run. */
static int continues(const aps_asm_coalescer *c, const aps_asm_event *ev)
{
    const aps_asm_event *p = &c->pending;
    size_t i;
    if (p->kind != APS_ASM_BLOCK_DELTA || p->delta != ev->delta || p->index != ev->index ||
        p->ns_len != ev->ns_len || !same_slice(p->node, ev->node))
        return 0;
    for (i = 0; i < ev->ns_len; i++)
        if (!same_slice(p->ns[i], ev->ns[i]))
            return 0;
    return 1;
}

APS_NODISCARD static aps_status flush(aps_asm_coalescer *c)
{
    aps_status st;
    if (c->pending.kind == APS_ASM_OTHER)
        return APS_OK;
    c->pending.text.ptr = c->text;
    st = c->emit(c->ctx, &c->pending);
    c->pending.kind = APS_ASM_OTHER;
    return st;
}

aps_status aps_asm_coalescer_flush(aps_asm_coalescer *c)
{
    return flush(c);
}

/* Grows a buffer to at least `need` bytes (contents not kept). 0 on failure. */
static int reserve(const aps_allocator *a, void **buf, size_t *cap, size_t need, size_t unit)
{
    void *p;
    if (need <= *cap)
        return 1;
    if (need > SIZE_MAX / unit)
        return 0;
    p = mem_alloc(a, need * unit);
    if (p == NULL)
        return 0;
    mem_free(a, *buf, *cap * unit);
    *buf = p;
    *cap = need;
    return 1;
}

/* Makes `ev` the pending run, copying what it points to. 0 when memory is short. */
static int begin_run(aps_asm_coalescer *c, const aps_asm_event *ev)
{
    size_t names = ev->node.len, i, at = 0;
    aps_asm_event *p = &c->pending;
    const char *base;
    for (i = 0; i < ev->ns_len; i++) {
        if (ev->ns[i].len > SIZE_MAX - names)
            return 0;
        names += ev->ns[i].len;
    }
    /* The copies are padded, so merged deltas keep a padded caller's promise (aps_asm_options). */
    if (names > SIZE_MAX - APS_PADDING || c->max_bytes > SIZE_MAX - APS_PADDING ||
        !reserve(&c->allocator, (void **)&c->text, &c->text_cap, c->max_bytes + APS_PADDING, 1) ||
        !reserve(&c->allocator, (void **)&c->segs, &c->segs_cap, ev->ns_len, sizeof *c->segs) ||
        !reserve(&c->allocator, (void **)&c->names, &c->names_cap, names + APS_PADDING, 1))
        return 0;
    /* An empty name is still present: it must not become a NULL (absent) slice. */
    base = c->names != NULL ? c->names : "";
    memset(p, 0, sizeof *p);
    p->kind = ev->kind;
    p->delta = ev->delta;
    p->index = ev->index;
    p->position = ev->position;
    p->ns = ev->ns_len ? c->segs : NULL;
    p->ns_len = ev->ns_len;
    for (i = 0; i < ev->ns_len; i++) {
        c->segs[i].ptr = base + at;
        c->segs[i].len = ev->ns[i].len;
        if (ev->ns[i].len)
            memcpy(c->names + at, ev->ns[i].ptr, ev->ns[i].len);
        at += ev->ns[i].len;
    }
    p->node.ptr = ev->node.ptr ? base + at : NULL;
    p->node.len = ev->node.len;
    if (ev->node.len)
        memcpy(c->names + at, ev->node.ptr, ev->node.len);
    p->text.len = ev->text.len;
    if (ev->text.len)
        memcpy(c->text, ev->text.ptr, ev->text.len);
    c->pending_events = 1;
    return 1;
}

static int malformed(const aps_asm_event *ev)
{
    size_t i;
    if ((unsigned)ev->kind > (unsigned)APS_ASM_MESSAGE_USAGE || (ev->ns == NULL && ev->ns_len) ||
        (ev->node.ptr == NULL && ev->node.len) || (ev->text.ptr == NULL && ev->text.len))
        return 1;
    for (i = 0; i < ev->ns_len; i++)
        if (ev->ns[i].ptr == NULL && ev->ns[i].len)
            return 1;
    return 0;
}

aps_status aps_asm_coalescer_push(aps_asm_coalescer *c, const aps_asm_event *ev)
{
    aps_status st;
    if (c == NULL || ev == NULL || malformed(ev))
        return APS_E_ARGUMENT;
    if (mergeable(ev) && continues(c, ev) && c->pending_events < c->max_events &&
        ev->text.len <= c->max_bytes - c->pending.text.len) {
        if (ev->text.len)
            memcpy(c->text + c->pending.text.len, ev->text.ptr, ev->text.len);
        c->pending.text.len += ev->text.len;
        c->pending_events++;
        return APS_OK;
    }
    if ((st = flush(c)) != APS_OK)
        return st;
    if (mergeable(ev) && ev->text.len <= c->max_bytes && begin_run(c, ev))
        return APS_OK;
    return c->emit(c->ctx, ev);
}
