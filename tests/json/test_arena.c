/* test_arena.c - the bump arena: alignment, reuse, mark/rollback, limits, failures. */
#include "aps/arena.h"

#include "../test.h"
#include "test_util.h"

#include <stdint.h>
#include <stdlib.h>

static void test_basics(void)
{
    aps_arena a;
    aps_arena_marker m;
    char *p, *q;
    size_t i;
    aps_arena_init(&a, NULL);
    CHECK_INT(aps_arena_used(&a), 0);
    for (i = 1; i < 100; i++) {
        void *x = aps_arena_alloc(&a, i);
        CHECK(x != NULL && (uintptr_t)x % APS_ARENA_ALIGN == 0);
        memset(x, 0xAB, i);
    }
    p = aps_arena_dup(&a, "hello", 5);
    CHECK(p != NULL && memcmp(p, "hello", 5) == 0);
    CHECK(aps_arena_alloc(&a, 0) != NULL);
    /* A block bigger than a chunk gets its own. */
    q = (char *)aps_arena_alloc(&a, 100000);
    CHECK(q != NULL);
    memset(q, 1, 100000);
    CHECK_INT(aps_arena_malloc_calls(&a), 2);
    /* Reset keeps the chunks: the same work again costs no allocator call. */
    aps_arena_reset(&a);
    CHECK_INT(aps_arena_used(&a), 0);
    for (i = 1; i < 100; i++)
        CHECK(aps_arena_alloc(&a, i) != NULL);
    CHECK(aps_arena_alloc(&a, 100000) != NULL);
    CHECK_INT(aps_arena_malloc_calls(&a), 2);
    /* Rollback releases what came after the mark. */
    m = aps_arena_mark(&a);
    i = aps_arena_used(&a);
    CHECK(aps_arena_alloc(&a, 50000) != NULL);
    CHECK(aps_arena_used(&a) > i);
    aps_arena_rollback(&a, m);
    CHECK_INT(aps_arena_used(&a), i);
    /* Realloc grows the last block in place, and copies otherwise. */
    aps_arena_reset(&a);
    p = (char *)aps_arena_realloc(&a, NULL, 0, 8, 8);
    memcpy(p, "abcdefgh", 8);
    q = (char *)aps_arena_realloc(&a, p, 8, 64, 8);
    CHECK(q == p);
    (void)aps_arena_alloc(&a, 1);
    q = (char *)aps_arena_realloc(&a, p, 64, 128, 8);
    CHECK(q != p && memcmp(q, "abcdefgh", 8) == 0);
    aps_arena_deinit(&a);
}

static void test_initial_and_limit(void)
{
    union {
        char b[1024];
        uint64_t align;
    } buf;
    aps_arena_options o;
    aps_arena a;
    memset(&o, 0, sizeof o);
    o.initial = buf.b;
    o.initial_size = sizeof buf.b;
    o.limit = 20000;
    aps_arena_init(&a, &o);
    CHECK(aps_arena_alloc(&a, 512) != NULL);
    CHECK_INT(aps_arena_malloc_calls(&a), 0);
    CHECK(aps_arena_alloc(&a, 4096) != NULL);
    CHECK_INT(aps_arena_malloc_calls(&a), 1);
    CHECK(aps_arena_alloc(&a, 30000) == NULL);
    CHECK_INT(aps_arena_failure(&a), APS_E_LIMIT);
    aps_arena_deinit(&a);
}

/* Every allocator call in turn fails; the arena reports it and leaks nothing. */
static void test_failures(void)
{
    long n;
    for (n = 0; n < 6; n++) {
        test_alloc f;
        aps_arena_options o;
        aps_arena a;
        int i, ok = 1;
        memset(&o, 0, sizeof o);
        test_alloc_init(&f, n, 0);
        o.allocator = test_alloc_hooks(&f);
        o.chunk_size = 256;
        aps_arena_init(&a, &o);
        for (i = 0; i < 20 && ok; i++)
            ok = aps_arena_alloc(&a, 100) != NULL;
        CHECK(!ok);
        CHECK_INT(aps_arena_failure(&a), APS_E_NOMEM);
        aps_arena_deinit(&a);
        CHECK_INT(f.live, 0);
    }
}

/* An allocator that records the blocks it handed out, to check what lies inside them. */
typedef struct recording {
    char *blocks[1024];
    size_t sizes[1024];
    int n;
} recording;

static void *recording_alloc(void *ctx, size_t size)
{
    recording *r = (recording *)ctx;
    char *p = (char *)malloc(size);
    if (p != NULL && r->n < 1024) {
        r->blocks[r->n] = p;
        r->sizes[r->n++] = size;
    }
    return p;
}

static void recording_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

/* Whether [p, p + n) lies inside one block of `r` or of `initial`. */
static int inside(const recording *r, const char *initial, size_t initial_size, const char *p, size_t n)
{
    int i;
    if (p >= initial && n <= initial_size && p - initial <= (ptrdiff_t)(initial_size - n))
        return 1;
    for (i = 0; i < r->n; i++)
        if (p >= r->blocks[i] && n <= r->sizes[i] && p - r->blocks[i] <= (ptrdiff_t)(r->sizes[i] - n))
            return 1;
    return 0;
}

/*
 * Every allocation, of every size and alignment, with an initial buffer,
 * chunks of their own and grown blocks, is followed by APS_PADDING bytes
 * of memory the arena holds (aps/common.h): readable, never handed out.
 */
static void test_padding(void)
{
    union {
        char b[200];
        uint64_t align;
    } buf;
    recording r;
    aps_arena_options o;
    aps_arena a;
    char *prev = NULL;
    size_t i, prev_size = 0;
    memset(&r, 0, sizeof r);
    memset(&o, 0, sizeof o);
    o.allocator.alloc = recording_alloc;
    o.allocator.free = recording_free;
    o.allocator.ctx = &r;
    o.initial = buf.b;
    o.initial_size = sizeof buf.b;
    o.chunk_size = 256;
    aps_arena_init(&a, &o);
    for (i = 0; i < 300; i++) {
        size_t size = (i * 7919) % (i % 10 == 9 ? 1000 : 40);
        size_t align = (size_t)1 << (i % 5);
        char *p = (char *)aps_arena_alloc_aligned(&a, size, align);
        CHECK(p != NULL);
        CHECK(inside(&r, buf.b, sizeof buf.b, p, size + APS_PADDING));
        if (i % 3 == 0) {
            prev = (char *)aps_arena_realloc(&a, prev, prev_size, prev_size + 13, 1);
            prev_size += 13;
            CHECK(prev != NULL);
            CHECK(inside(&r, buf.b, sizeof buf.b, prev, prev_size + APS_PADDING));
        }
    }
    aps_arena_deinit(&a);
}

int main(void)
{
    test_padding();
    test_basics();
    test_initial_and_limit();
    test_failures();
    return test_report();
}
