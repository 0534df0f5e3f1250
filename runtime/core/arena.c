/* arena.c - chunked bump arena with mark/rollback (see aps/arena.h). */
#include "aps/arena.h"

#include <stdlib.h>

/*
 * Chunks form one list. Those up to `a->chunk` hold live allocations; those
 * after it are free and reused before anything new is asked for, which is
 * what makes a reset arena allocation-free. Every chunk has APS_PADDING
 * bytes after its `size` that are never handed out, so that every
 * allocation can be read 16 bytes past its end (aps/common.h).
 */
struct aps_arena_chunk {
    aps_arena_chunk *next;
    size_t size;  /* bytes handed out after the header (APS_PADDING more follow) */
    size_t total; /* bytes obtained from the allocator, 0 for the caller's buffer */
};

#define HEADER_SIZE ((sizeof(aps_arena_chunk) + APS_ARENA_ALIGN - 1) & ~(size_t)(APS_ARENA_ALIGN - 1))

static char *chunk_data(aps_arena_chunk *c)
{
    return (char *)c + HEADER_SIZE;
}

static void *default_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void default_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

const aps_allocator aps_malloc_allocator = { default_alloc, default_free, NULL };

void aps_arena_init(aps_arena *a, const aps_arena_options *options)
{
    aps_arena_options none;
    memset(&none, 0, sizeof none);
    if (options == NULL)
        options = &none;
    memset(a, 0, sizeof *a);
    a->allocator = options->allocator;
    if (a->allocator.alloc == NULL) {
        a->allocator = aps_malloc_allocator;
        a->allocator.ctx = NULL;
    }
    a->chunk_size = options->chunk_size ? options->chunk_size : APS_ARENA_CHUNK_DEFAULT;
    a->limit = options->limit;
    if (options->initial != NULL && options->initial_size >= 64) {
        uintptr_t p = ((uintptr_t)options->initial + APS_ARENA_ALIGN - 1) & ~(uintptr_t)(APS_ARENA_ALIGN - 1);
        size_t skip = (size_t)(p - (uintptr_t)options->initial);
        if (options->initial_size >= skip + HEADER_SIZE + APS_PADDING + APS_ARENA_ALIGN) {
            aps_arena_chunk *c = (aps_arena_chunk *)p;
            c->next = NULL;
            c->size = options->initial_size - skip - HEADER_SIZE - APS_PADDING;
            c->total = 0;
            a->head = c;
            aps_arena_reset(a);
        }
    }
}

void aps_arena_deinit(aps_arena *a)
{
    aps_arena_chunk *c, *next;
    if (a == NULL)
        return;
    for (c = a->head; c != NULL; c = next) {
        next = c->next;
        if (c->total != 0)
            a->allocator.free(a->allocator.ctx, c, c->total);
    }
    memset(a, 0, sizeof *a);
}

void aps_arena_reset(aps_arena *a)
{
    a->chunk = a->head;
    a->used_before = 0;
    if (a->head != NULL) {
        a->cur = chunk_data(a->head);
        a->end = a->cur + a->head->size;
    } else {
        a->cur = a->end = NULL;
    }
}

void aps_arena_rollback(aps_arena *a, aps_arena_marker mark)
{
    if (mark.chunk == NULL) {
        aps_arena_reset(a);
        return;
    }
    a->chunk = mark.chunk;
    a->cur = mark.cur;
    a->end = chunk_data(mark.chunk) + mark.chunk->size;
    a->used_before = mark.used_before;
}

/* Makes `c`, a free chunk, the current one (moving it right after the old current). */
static void use_chunk(aps_arena *a, aps_arena_chunk *c, aps_arena_chunk *prev)
{
    aps_arena_chunk *after = a->chunk != NULL ? a->chunk->next : a->head;
    if (c != after) {
        /* Unlink from its place among the free chunks, relink first among them. */
        prev->next = c->next;
        c->next = after;
        if (a->chunk != NULL)
            a->chunk->next = c;
        else
            a->head = c;
    }
    if (a->chunk != NULL)
        a->used_before += (size_t)(a->cur - chunk_data(a->chunk));
    a->chunk = c;
    a->cur = chunk_data(c);
    a->end = a->cur + c->size;
}

void *aps_arena_alloc_slow(aps_arena *a, size_t size, size_t align)
{
    aps_arena_chunk *c, *prev = NULL;
    size_t need, total;
    if (size > SIZE_MAX / 4) {
        a->failure = APS_E_NOMEM;
        return NULL;
    }
    need = size + align; /* room for the worst-case alignment padding */
    if (need < 1)
        need = 1;
    /* The current chunk may still fit it (the inline path refuses before the first use). */
    if (a->chunk != NULL) {
        uintptr_t p = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
        if (p <= (uintptr_t)a->end && size <= (size_t)((uintptr_t)a->end - p)) {
            a->cur = (char *)(p + size);
            return (void *)p;
        }
    }
    for (c = a->chunk != NULL ? a->chunk->next : a->head; c != NULL; prev = c, c = c->next) {
        if (c->size >= need)
            break;
    }
    if (c == NULL) {
        size_t data = size + align > a->chunk_size ? size + align : a->chunk_size;
        total = HEADER_SIZE + data + APS_PADDING;
        if (a->limit != 0 && (a->reserved > a->limit || total > a->limit - a->reserved)) {
            a->failure = APS_E_LIMIT;
            return NULL;
        }
        c = (aps_arena_chunk *)a->allocator.alloc(a->allocator.ctx, total);
        a->malloc_calls++;
        if (c == NULL) {
            a->failure = APS_E_NOMEM;
            return NULL;
        }
        a->reserved += total;
        c->size = data;
        c->total = total;
        /* Insert right after the current chunk, ahead of the free ones. */
        if (a->chunk != NULL) {
            c->next = a->chunk->next;
            a->chunk->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
        prev = NULL;
    }
    use_chunk(a, c, prev);
    {
        uintptr_t p = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
        a->cur = (char *)(p + size);
        return (void *)p;
    }
}

void *aps_arena_realloc(aps_arena *a, void *ptr, size_t old_size, size_t new_size, size_t align)
{
    char *p = (char *)ptr;
    void *q;
    if (p != NULL && p + old_size == a->cur && new_size <= (size_t)(a->end - p)) {
        a->cur = p + new_size;
        return p;
    }
    q = aps_arena_alloc_aligned(a, new_size, align);
    if (q != NULL && p != NULL)
        memcpy(q, p, old_size < new_size ? old_size : new_size);
    return q;
}

size_t aps_arena_used(const aps_arena *a)
{
    if (a->chunk == NULL)
        return 0;
    return a->used_before + (size_t)(a->cur - chunk_data(a->chunk));
}
