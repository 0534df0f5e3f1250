/*
 * chunking.h - what the framing tests share: a driver that feeds the same
 * bytes in many chunkings (byte at a time, every two-way split, seeded random
 * splits) and checks that every one gives the log (a tlog of test_util.h,
 * which the parser's callbacks write what they saw into) of the whole.
 */
#ifndef FRAMING_CHUNKING_H
#define FRAMING_CHUNKING_H

#include "../test.h"
#include "test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Parses in[0..len) as pieces cut at cuts[0..ncuts) (increasing offsets) and
 * writes what the parser reported into `out`.
 */
typedef void (*chunked_parse_fn)(const uint8_t *in, size_t len, const size_t *cuts,
                                 size_t ncuts, tlog *out);

/*
 * Checks that every chunking gives the whole input's log; returns that log
 * (the caller frees it). `two_way_max` caps the inputs on which all two-way
 * splits are tried (they cost len parses).
 */
static inline tlog check_split_invariance(const char *name, const uint8_t *in, size_t len,
                                   chunked_parse_fn parse, size_t two_way_max)
{
    tlog whole = { 0 }, got = { 0 };
    size_t *cuts = malloc((len + 1) * sizeof *cuts);
    size_t i, k, bad = 0;
    uint64_t seed = 12345;
    int round;
    if (cuts == NULL)
        exit(2);
    parse(in, len, NULL, 0, &whole);

    for (i = 1; i < len; i++)
        cuts[i - 1] = i;
    tlog_clear(&got);
    parse(in, len, cuts, len > 0 ? len - 1 : 0, &got);
    if (strcmp(got.s ? got.s : "", whole.s ? whole.s : "") != 0) {
        fprintf(stderr, "%s: byte-at-a-time differs:\n  whole: %s\n  bytes: %s\n", name,
                whole.s ? whole.s : "", got.s ? got.s : "");
        bad++;
    }
    if (len <= two_way_max) {
        for (i = 0; i <= len; i++) {
            tlog_clear(&got);
            parse(in, len, &i, 1, &got);
            if (strcmp(got.s ? got.s : "", whole.s ? whole.s : "") != 0 && bad++ < 3)
                fprintf(stderr, "%s: split at %zu differs:\n  whole: %s\n  split: %s\n",
                        name, i, whole.s ? whole.s : "", got.s ? got.s : "");
        }
    }
    for (round = 0; round < 200; round++) {
        size_t n = 0, at = 0;
        while (len > 0) {
            /* Mostly short pieces, sometimes long ones. */
            size_t step = 1 + (size_t)(test_rand(&seed) % (round % 2 ? 7 : 300));
            at += step;
            if (at >= len)
                break;
            cuts[n++] = at;
        }
        tlog_clear(&got);
        parse(in, len, cuts, n, &got);
        if (strcmp(got.s ? got.s : "", whole.s ? whole.s : "") != 0 && bad++ < 3)
            fprintf(stderr, "%s: random chunking %d differs\n", name, round);
    }
    k = bad;
    CHECK(k == 0);
    free(cuts);
    tlog_free(&got);
    return whole;
}

#endif
