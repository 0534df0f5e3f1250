/*
 * aps/arena.h - allocator hooks and a chunked bump arena with mark/rollback.
 *
 * Everything a decode allocates lives in one arena that the caller resets
 * between messages; there is no per-object free. The arena keeps its chunks
 * across aps_arena_reset and aps_arena_rollback, so once it is warm (its
 * chunks cover the largest message seen) decoding makes no allocator call.
 *
 *     aps_arena a;
 *     aps_arena_init(&a, NULL);
 *     for (each message) {
 *         aps_arena_reset(&a);
 *         ... decode into &a ...
 *     }
 *     aps_arena_deinit(&a);
 *
 * Thread-safety: an arena belongs to one thread at a time; distinct arenas
 * are independent. Allocator hooks are called from the thread using the
 * arena or writer that holds them.
 */
#ifndef APS_ARENA_H
#define APS_ARENA_H

#include "aps/common.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Where the runtime gets memory from. `alloc` returns `size` bytes aligned
 * for any object (as malloc does) or NULL; `free` releases a block that
 * `alloc` returned, with the size it was asked for (never NULL). `ctx` is
 * passed to both unchanged. An all-zero allocator (alloc == NULL) means
 * malloc/free. Tests inject failures through these hooks.
 */
typedef struct aps_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *ptr, size_t size);
    void *ctx;
} aps_allocator;

/* The allocator an all-zero aps_allocator stands for: malloc and free. */
extern const aps_allocator aps_malloc_allocator;

/* Alignment of aps_arena_alloc: enough for every scalar type C99 has. */
#define APS_ARENA_ALIGN 16

/* Default size of the chunks the arena asks its allocator for. */
#define APS_ARENA_CHUNK_DEFAULT 16384

/*
 * How an arena behaves. All zero means: malloc/free, chunks of
 * APS_ARENA_CHUNK_DEFAULT bytes, no limit, no initial buffer.
 */
typedef struct aps_arena_options {
    aps_allocator allocator; /* zero: malloc/free */
    size_t chunk_size;       /* 0: APS_ARENA_CHUNK_DEFAULT; bigger requests get a chunk of their own */
    size_t limit;            /* 0: none; else most bytes of chunks the arena may hold (initial buffer excluded) */
    void *initial;           /* optional caller memory used as the first chunk; never freed by the arena */
    size_t initial_size;     /* bytes at `initial` (ignored when below 64, or too small for a
                                chunk header, APS_PADDING and 16 bytes) */
} aps_arena_options;

typedef struct aps_arena_chunk aps_arena_chunk;

/*
 * An arena, in caller storage. Fields are private: read them only through
 * the functions below (aps_arena_alloc is inline and touches cur/end).
 */
typedef struct aps_arena {
    char *cur;                /* next free byte of the current chunk */
    char *end;                /* end of the current chunk */
    aps_arena_chunk *chunk;   /* current chunk, NULL before the first */
    aps_arena_chunk *head;    /* first chunk; chunks after `chunk` are free */
    size_t used_before;       /* bytes handed out in chunks before `chunk` */
    size_t reserved;          /* bytes of chunks obtained from the allocator */
    size_t malloc_calls;      /* allocator calls made since init */
    aps_status failure;       /* why the last failed allocation failed */
    aps_allocator allocator;
    size_t chunk_size;
    size_t limit;
} aps_arena;

/*
 * A point in an arena's history, from aps_arena_mark. Rolling back to it
 * releases everything allocated after it (the chunks stay for reuse).
 */
typedef struct aps_arena_marker {
    aps_arena_chunk *chunk;
    char *cur;
    size_t used_before;
} aps_arena_marker;

/*
 * Initialises `a` in caller storage. `options` may be NULL (the defaults);
 * it is copied, so it need not outlive the call. Allocates nothing.
 */
void aps_arena_init(aps_arena *a, const aps_arena_options *options);

/* Returns every chunk to the allocator. `a` may then be initialised again. NULL-safe. */
void aps_arena_deinit(aps_arena *a);

/*
 * Releases every allocation but keeps the chunks, so the next use of a warm
 * arena makes no allocator call. Pointers obtained before are invalid.
 */
void aps_arena_reset(aps_arena *a);

/* Remembers the current fill level. */
static inline aps_arena_marker aps_arena_mark(const aps_arena *a)
{
    aps_arena_marker m;
    m.chunk = a->chunk;
    m.cur = a->cur;
    m.used_before = a->used_before;
    return m;
}

/*
 * Releases every allocation made since `mark` was taken (chunks are kept).
 * `mark` must come from this arena, be taken after its last reset, and not
 * lie beyond the current fill level (a mark taken after a point that was
 * later rolled back to is stale).
 */
void aps_arena_rollback(aps_arena *a, aps_arena_marker mark);

/* Slow path of aps_arena_alloc_aligned; call that instead. */
void *aps_arena_alloc_slow(aps_arena *a, size_t size, size_t align);

/*
 * Returns `size` bytes aligned to `align` (a power of two no larger than
 * APS_ARENA_ALIGN), owned by the arena until its next reset, rollback past
 * it, or deinit. Returns NULL when the allocator fails (aps_arena_failure
 * gives APS_E_NOMEM) or the byte limit would be exceeded (APS_E_LIMIT).
 * A size of 0 returns a valid, unique-enough non-NULL pointer. At least
 * APS_PADDING readable bytes follow every allocation (their contents are
 * unspecified), so decoded strings in the arena are padded.
 */
static inline void *aps_arena_alloc_aligned(aps_arena *a, size_t size, size_t align)
{
    uintptr_t p = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
    if (a->cur != NULL && size <= (size_t)((uintptr_t)a->end - p) && p <= (uintptr_t)a->end) {
        a->cur = (char *)(p + size);
        return (void *)p;
    }
    return aps_arena_alloc_slow(a, size, align);
}

/* aps_arena_alloc_aligned with APS_ARENA_ALIGN: fit for any object. */
static inline void *aps_arena_alloc(aps_arena *a, size_t size)
{
    return aps_arena_alloc_aligned(a, size, APS_ARENA_ALIGN);
}

/* Copies `len` bytes of `src` into the arena (byte-aligned); NULL on failure. */
static inline char *aps_arena_dup(aps_arena *a, const void *src, size_t len)
{
    char *p = (char *)aps_arena_alloc_aligned(a, len, 1);
    if (p != NULL && len > 0)
        memcpy(p, src, len);
    return p;
}

/*
 * The free room of the current chunk, for a writer that learns its size
 * only as it writes (an unescaped string): write at most *room bytes at the
 * returned pointer, then keep the first n with aps_arena_commit. Room 0 (and
 * NULL) before the first chunk; nothing is allocated either way.
 */
static inline char *aps_arena_room(const aps_arena *a, size_t *room)
{
    *room = a->cur != NULL ? (size_t)(a->end - a->cur) : 0;
    return a->cur;
}

/* Keeps the first n bytes (n <= the room) written at aps_arena_room's pointer. */
static inline void aps_arena_commit(aps_arena *a, size_t n)
{
    a->cur += n;
}

/*
 * Resizes the block `ptr` of `old_size` bytes (NULL with 0 for a new block)
 * to `new_size` bytes aligned to `align`. The last block allocated grows or
 * shrinks in place when its chunk has room; otherwise a new block receives
 * a copy. Returns NULL on failure, leaving `ptr` untouched. Meant for arrays
 * whose length is found while decoding them.
 */
void *aps_arena_realloc(aps_arena *a, void *ptr, size_t old_size, size_t new_size,
                        size_t align);

/* Why the last failed allocation failed: APS_E_NOMEM or APS_E_LIMIT (APS_OK if none did). */
static inline aps_status aps_arena_failure(const aps_arena *a)
{
    return a->failure;
}

/* Bytes handed out since the last reset (alignment padding included). */
size_t aps_arena_used(const aps_arena *a);

/* Bytes of chunks currently held from the allocator (the initial buffer excluded). */
static inline size_t aps_arena_reserved(const aps_arena *a)
{
    return a->reserved;
}

/* Allocator calls made since init: a benchmark divides it by messages decoded. */
static inline size_t aps_arena_malloc_calls(const aps_arena *a)
{
    return a->malloc_calls;
}

#ifdef __cplusplus
}
#endif
#endif /* APS_ARENA_H */
