/*
 * mutate.h - seeded mutations of JSON texts for the differential tests:
 * bytes replaced (by JSON punctuation, digits, letters of literals, a
 * backslash or bytes invalid in UTF-8), spans deleted or duplicated, bytes
 * inserted. Reproducible: a xorshift generator with a fixed seed.
 */
#ifndef CDDLGEN_TEST_MUTATE_H
#define CDDLGEN_TEST_MUTATE_H

#include <stdint.h>
#include <string.h>

static uint64_t mutate_rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_rand(void)
{
    mutate_rng ^= mutate_rng << 13;
    mutate_rng ^= mutate_rng >> 7;
    mutate_rng ^= mutate_rng << 17;
    return mutate_rng;
}

/* One mutation of `in` into `out` (room for 2 * len + 16). Returns the new length. */
static size_t mutate(const char *in, size_t len, char *out)
{
    size_t n = len, at = len ? (size_t)(next_rand() % len) : 0, span = 1 + (size_t)(next_rand() % 8);
    static const char bytes[] = "{}[]\":,0123456789-.eE tfnul\\\x80\xff";
    memcpy(out, in, len);
    switch (next_rand() % 4) {
    case 0: /* replace a byte */
        if (len)
            out[at] = bytes[next_rand() % (sizeof bytes - 1)];
        break;
    case 1: /* delete a span */
        if (at + span > len)
            span = len - at;
        memmove(out + at, out + at + span, len - at - span);
        n = len - span;
        break;
    case 2: /* duplicate a span */
        if (at + span > len)
            span = len - at;
        memmove(out + at + span, out + at, len - at);
        n = len + span;
        break;
    default: /* insert a byte */
        memmove(out + at + 1, out + at, len - at);
        out[at] = bytes[next_rand() % (sizeof bytes - 1)];
        n = len + 1;
        break;
    }
    return n;
}

#endif
