/*
 * malloc_count.h - counts the heap allocations the whole process makes, for
 * ap-bench's "allocations per message" figures: malloc_count.c replaces
 * malloc, calloc, realloc, aligned_alloc and posix_memalign in the bench binary (C++'s operator
 * new goes through malloc too) and forwards them to glibc, counting each
 * call. Where that is impossible (not glibc, or a sanitizer, which replaces
 * malloc itself) nothing is counted and bench_malloc_counting() is 0.
 */
#ifndef AP_BENCH_MALLOC_COUNT_H
#define AP_BENCH_MALLOC_COUNT_H

#include <stddef.h>

/* 1 when allocations are counted in this build, else 0. */
int bench_malloc_counting(void);

/* Allocation calls (malloc, calloc, realloc, aligned forms) so far. */
size_t bench_malloc_calls(void);

#endif
