/* arena.c - chunked bump arena with mark/rollback (see apr_arena.h). */
#include "apr_arena.h"

#include <stdlib.h>

/*
 * Chunks form one list. Those up to `a->chunk` hold live allocations; those
 * after it are free and reused before anything new is asked for, which is
 * what makes a reset arena allocation-free. Every chunk has APR_PADDING
 * bytes after its `size` that are never handed out, so that every
 * allocation can be read 16 bytes past its end (apr_common.h).
 */
struct apr_arena_chunk {
    apr_arena_chunk *next;
    size_t size;  /* bytes handed out after the header (APR_PADDING more follow) */
    size_t total; /* bytes obtained from the allocator, 0 for the caller's buffer */
};

#define HEADER_SIZE ((sizeof(apr_arena_chunk) + APR_ARENA_ALIGN - 1) & ~(size_t)(APR_ARENA_ALIGN - 1))

static char *chunk_data(apr_arena_chunk *c)
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

const apr_allocator apr_malloc_allocator = { default_alloc, default_free, NULL };

void apr_arena_init(apr_arena *a, const apr_arena_options *options)
{
    apr_arena_options none;
    memset(&none, 0, sizeof none);
    if (options == NULL)
        options = &none;
    memset(a, 0, sizeof *a);
    a->allocator = options->allocator;
    if (a->allocator.alloc == NULL) {
        a->allocator = apr_malloc_allocator;
        a->allocator.ctx = NULL;
    }
    a->chunk_size = options->chunk_size ? options->chunk_size : APR_ARENA_CHUNK_DEFAULT;
    a->limit = options->limit;
    if (options->initial != NULL && options->initial_size >= 64) {
        uintptr_t p = ((uintptr_t)options->initial + APR_ARENA_ALIGN - 1) & ~(uintptr_t)(APR_ARENA_ALIGN - 1);
        size_t skip = (size_t)(p - (uintptr_t)options->initial);
        if (options->initial_size >= skip + HEADER_SIZE + APR_PADDING + APR_ARENA_ALIGN) {
            apr_arena_chunk *c = (apr_arena_chunk *)p;
            c->next = NULL;
            c->size = options->initial_size - skip - HEADER_SIZE - APR_PADDING;
            c->total = 0;
            a->head = c;
            apr_arena_reset(a);
        }
    }
}

void apr_arena_deinit(apr_arena *a)
{
    apr_arena_chunk *c, *next;
    if (a == NULL)
        return;
    for (c = a->head; c != NULL; c = next) {
        next = c->next;
        if (c->total != 0)
            a->allocator.free(a->allocator.ctx, c, c->total);
    }
    memset(a, 0, sizeof *a);
}

void apr_arena_reset(apr_arena *a)
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

void apr_arena_rollback(apr_arena *a, apr_arena_marker mark)
{
    if (mark.chunk == NULL) {
        apr_arena_reset(a);
        return;
    }
    a->chunk = mark.chunk;
    a->cur = mark.cur;
    a->end = chunk_data(mark.chunk) + mark.chunk->size;
    a->used_before = mark.used_before;
}

/* Makes `c`, a free chunk, the current one (moving it right after the old current). */
static void use_chunk(apr_arena *a, apr_arena_chunk *c, apr_arena_chunk *prev)
{
    apr_arena_chunk *after = a->chunk != NULL ? a->chunk->next : a->head;
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

void *apr_arena_alloc_slow(apr_arena *a, size_t size, size_t align)
{
    apr_arena_chunk *c, *prev = NULL;
    size_t need, total;
    if (size > SIZE_MAX / 4) {
        a->failure = APR_E_NOMEM;
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
        total = HEADER_SIZE + data + APR_PADDING;
        if (a->limit != 0 && (a->reserved > a->limit || total > a->limit - a->reserved)) {
            a->failure = APR_E_LIMIT;
            return NULL;
        }
        c = (apr_arena_chunk *)a->allocator.alloc(a->allocator.ctx, total);
        a->malloc_calls++;
        if (c == NULL) {
            a->failure = APR_E_NOMEM;
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

void *apr_arena_realloc(apr_arena *a, void *ptr, size_t old_size, size_t new_size, size_t align)
{
    char *p = (char *)ptr;
    void *q;
    if (p != NULL && p + old_size == a->cur && new_size <= (size_t)(a->end - p)) {
        a->cur = p + new_size;
        return p;
    }
    q = apr_arena_alloc_aligned(a, new_size, align);
    if (q != NULL && p != NULL)
        memcpy(q, p, old_size < new_size ? old_size : new_size);
    return q;
}

size_t apr_arena_used(const apr_arena *a)
{
    if (a->chunk == NULL)
        return 0;
    return a->used_before + (size_t)(a->cur - chunk_data(a->chunk));
}
