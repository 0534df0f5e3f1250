/*
 * malloc_count.c - see malloc_count.h. A definition of malloc in the
 * executable takes the place of libc's for every library the process loads
 * (ELF symbol interposition); glibc exports its own implementation as
 * __libc_malloc and friends, which these forward to.
 */
#include "malloc_count.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc */

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define BENCH_NO_COUNT 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BENCH_NO_COUNT 1
#endif

#if defined(__GLIBC__) && !defined(BENCH_NO_COUNT)

#include <errno.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static size_t calls; /* relaxed atomics: the redis area runs a thread */

static void count(void)
{
    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
    count();
    return __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    count();
    return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
    count();
    return __libc_realloc(p, n);
}

void free(void *p)
{
    __libc_free(p);
}

void *aligned_alloc(size_t align, size_t n)
{
    count();
    return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    void *p;
    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    count();
    if ((p = __libc_memalign(align, n)) == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

int bench_malloc_counting(void)
{
    return 1;
}

size_t bench_malloc_calls(void)
{
    return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}

#else

int bench_malloc_counting(void)
{
    return 0;
}

size_t bench_malloc_calls(void)
{
    return 0;
}

#endif
