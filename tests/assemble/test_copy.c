/*
 * test_copy.c - the fast path's token copies (runtime/protocol/
 * assemble_internal.h) against memcpy: every length from 1 to 16, the token
 * ending right before a page the process may not read (so a load past the
 * token faults), and the member's 16 bytes of room filled with a pattern
 * first. copy_token (every load inside the token) always; the AVX-512
 * masked load where the build has it and the CPU runs it.
 */
#define _DEFAULT_SOURCE
#include "../test.h"

#include "../../runtime/protocol/assemble_internal.h"

#include <sys/mman.h>
#include <unistd.h>

typedef void (*copy_fn)(char *dst, const char *src, size_t n);

static void copy_plain(char *dst, const char *src, size_t n)
{
    copy_token(dst, src, n);
}

#if ASM_HAVE_MASKED_COPY
static void copy_masked(char *dst, const char *src, size_t n)
{
    copy_token_masked(dst, src, n);
}
#endif

/* Copies every token of 1..16 bytes that ends at `edge` (a page boundary) into room after a prefix. */
static void check_copy(copy_fn copy, char *edge)
{
    size_t n, at;
    for (n = 1; n <= 16; n++) {
        char *src = edge - n;
        for (at = 0; at < 4; at++) {
            char room[40];
            size_t i;
            for (i = 0; i < n; i++)
                src[i] = (char)('a' + (n * 7 + i * 3) % 26);
            memset(room, '#', sizeof room);
            copy(room + at, src, n);
            CHECK(memcmp(room + at, src, n) == 0);
            for (i = 0; i < at; i++) /* nothing before the member's end is touched */
                CHECK(room[i] == '#');
            for (i = at + 16; i < sizeof room; i++) /* nor past its 16 bytes of room */
                CHECK(room[i] == '#');
        }
    }
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *map = (char *)mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    if (map == MAP_FAILED)
        return test_report();
    /* the second page unreadable: a load past a token that ends at it faults */
    CHECK(mprotect(map + page, (size_t)page, PROT_NONE) == 0);
    check_copy(copy_plain, map + page);
#if ASM_HAVE_MASKED_COPY
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
        check_copy(copy_masked, map + page);
        printf("masked copy checked too\n");
    }
#endif
    munmap(map, (size_t)page * 2);
    return test_report();
}
