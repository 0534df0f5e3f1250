/*
 * test_util.h - helpers the tests share, compiled once into the library
 * cddlgen_test_util (test_util.c) that test targets link: reading a whole
 * file, an allocator that counts and fails on demand (for the loops that make
 * every allocation fail in turn), and a sorted walk over a folder's files
 * (JSONTestSuite's y_/n_/i_ files, corpora).
 */
#ifndef CDDLGEN_TEST_UTIL_H
#define CDDLGEN_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "aps/arena.h"

/*
 * A growable text, always NUL-terminated once anything was added: what a
 * parser's or assembler's callbacks saw, written out to compare. Zeroed is
 * empty. Running out of memory ends the test program (exit 2).
 */
typedef struct tlog {
    char *s;
    size_t len, cap;
} tlog;

void tlog_add(tlog *l, const char *bytes, size_t n);
void tlog_str(tlog *l, const char *s);
void tlog_printf(tlog *l, const char *fmt, ...);
/* Appends bytes with \n, \r, \0, \\ and other control bytes made visible. */
void tlog_escaped(tlog *l, const char *s, size_t n);
/* The text so far ("" when nothing was added). */
const char *tlog_get(tlog *l);
void tlog_clear(tlog *l);
void tlog_free(tlog *l);

/*
 * The whole file at `path`, malloc'd and NUL-terminated (the NUL is not
 * counted in *len; `len` may be NULL). NULL when it cannot be read.
 */
char *test_read_file(const char *path, size_t *len);

/*
 * An allocator (malloc underneath) that counts what it does and fails the
 * request numbered fail_at (0-based, failed requests counted too), and with
 * fail_rest every request after it as well. fail_at -1: none fails.
 */
typedef struct test_alloc {
    long fail_at;
    int fail_rest;
    long calls;  /* requests so far, failed ones included */
    long failed; /* requests refused */
    long allocs; /* requests that succeeded (allocs - frees: blocks live) */
    long frees;
    long live;   /* bytes allocated and not yet freed */
    long total;  /* bytes ever allocated */
} test_alloc;

/* Counts zeroed, failing as fail_at and fail_rest say. */
void test_alloc_init(test_alloc *t, long fail_at, int fail_rest);

/* The aps_allocator that allocates through `t`. */
aps_allocator test_alloc_hooks(test_alloc *t);

/*
 * Calls fn(ctx, path, name) for each entry of `dir` whose name does
 * not start with '.' and ends with `suffix` (NULL: any), in name order (so
 * output and failures read the same on every machine). Returns the number of
 * files visited, or -1 if `dir` (or memory for its names) fails.
 */
long test_for_each_file(const char *dir, const char *suffix,
                        void (*fn)(void *ctx, const char *path, const char *name), void *ctx);

/*
 * splitmix64: a small seeded generator, so random inputs (and benchmark
 * corpora) are the same on every run. Inline: benchmarks call it in loops.
 */
static inline uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/*
 * h with `len` bytes folded in (FNV-1a) and then an end mark, so that
 * what callbacks reported hashes the same only if it was the same, piece by
 * piece. Start from TEST_HASH_INIT. Inline: the fuzz targets use it too,
 * and link no test library.
 */
#define TEST_HASH_INIT 0xCBF29CE484222325ull
static inline uint64_t test_hash_mix(uint64_t h, const void *bytes, size_t len)
{
    const uint8_t *p = (const uint8_t *)bytes;
    size_t i;
    for (i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001B3ull;
    return (h ^ 0xFF) * 0x100000001B3ull;
}

#endif
