/*
 * test_vector.c - the validating skip's vector string scans (SSE2, NEON,
 * AVX2, AVX-512BW: whichever this build and CPU have) against its scalar
 * one, byte by byte, and the skip's verdicts against the pull reader's.
 *
 * Every input is checked through every instruction set the skip has
 * (aps_json_impl_skip_with), as aps_json_impl_skip_fast with and without
 * duplicate names and as aps_json_impl_skip_compact: each must stop at the
 * same byte as the scalar scan, or give up where it gives up. Where a skip
 * accepts the whole text the reader must too (aps_json_validate then
 * answers without the reader, so its verdict, error and location are the
 * reader's whenever the text is bad). Inputs: the files of the folders
 * named on the command line (the JSON test suite, the fuzz corpora), each
 * also mutated, and generated strings of escapes, UTF-8 and control bytes
 * at every position around the 16-, 32- and 64-byte blocks. Each text sits
 * alone in a buffer of its exact size, so that a read past its end shows
 * under the sanitizers.
 */
#define _POSIX_C_SOURCE 200809L
#include "aps/json_impl.h"
#include "reader_accepts.h"
#include "test.h"
#include "test_util.h"

#include <dirent.h>
#include <stdlib.h>

static const aps_json_isa isas[] = { APS_JSON_ISA_SSE2, APS_JSON_ISA_NEON, APS_JSON_ISA_AVX2, APS_JSON_ISA_AVX512 };
static size_t texts, accepted, compared;

/* One way of skipping, where it stopped as an offset (-1: gave up). */
static long skip_at(aps_json_isa isa, const char *json, const char *end, int dup, int compact)
{
    const char *start = aps_scan_ws(json, end), *p = aps_json_impl_skip_with(isa, start, end, 64, dup, compact);
    return p == NULL ? -1 : (long)(p - json);
}

/* All three ways, every instruction set against the scalar scan. */
static void check_text(const char *text, size_t len, const char *what)
{
    char *json = (char *)malloc(len != 0 ? len : 1);
    const char *end;
    int way;
    size_t i;
    if (json == NULL)
        return;
    memcpy(json, text, len);
    end = json + len;
    texts++;
    for (way = 0; way < 3; way++) {
        int dup = way == 1, compact = way == 2;
        long scalar = skip_at(APS_JSON_ISA_SCALAR, json, end, dup, compact);
        if (way == 0 && scalar >= 0 && aps_scan_ws(json + scalar, end) == end) {
            accepted++;
            CHECK(reader_accepts(json, len));
        }
        for (i = 0; i < sizeof isas / sizeof *isas; i++) {
            long v;
            if (aps_json_impl_skip_isa(isas[i]) != isas[i])
                continue;
            v = skip_at(isas[i], json, end, dup, compact);
            compared++;
            if (v != scalar)
                fprintf(stderr, "%s: isa %d way %d stops at %ld, the scalar scan at %ld\n", what, (int)isas[i], way,
                        v, scalar);
            CHECK(v == scalar);
        }
    }
    free(json);
}

/* A file as it is, and mutated: bytes replaced, removed, doubled (of the interesting alphabet). */
static void check_mutations(const char *text, size_t len, const char *what, uint64_t *rng)
{
    static const char alphabet[] = "\"\\u/bfnrtx0aD{}[],: \x01\x1F\x7F\x80\xBF\xC2\xC3\xE0\xED\xEF\xF0\xF4\xFF";
    char *buf = (char *)malloc(len + 2);
    int k;
    if (buf == NULL)
        return;
    check_text(text, len, what);
    for (k = 0; k < 8 && len > 0; k++) {
        size_t at = (size_t)(test_rand(rng) % len), n = len;
        memcpy(buf, text, len);
        switch (test_rand(rng) % 3) {
        case 0: buf[at] = alphabet[test_rand(rng) % (sizeof alphabet - 1)]; break;
        case 1: memmove(buf + at, buf + at + 1, len - at - 1); n--; break;
        default: memmove(buf + at + 1, buf + at, len - at); n++; break;
        }
        check_text(buf, n, what);
    }
    free(buf);
}

/* Every regular file of a folder (not recursive). */
static void check_folder(const char *dir, uint64_t *rng)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    CHECK(d != NULL);
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        size_t len;
        char *text;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if ((text = test_read_file(path, &len)) == NULL)
            continue;
        check_mutations(text, len, path, rng);
        free(text);
    }
    closedir(d);
}

/* Pieces of string content, valid or not alone or only next to another. */
static const char *const pieces[] = {
    "a", "abcdefghijklmnop", " ", "\\", "\\\\", "\\\\\\", "\\\"", "\\n", "\\/", "\\b", "\\t", "\\f", "\\r",
    "\\x", "\\u", "\\u00e9", "\\u00E9", "\\u12", "\\u1", "\\u123", "\\u12x4", "\\ud7ff", "\\uD7FF", "\\ud83d\\ude00",
    "\\uD83D", "\\uDE00", "\\uD83D\\uDE00", "\\uDBFF\\uDFFF", "\\uDC00", "\\uD800\\u0041",
    "u", "\"", "\x01", "\x1F", "\x7F", "\xC3\xA9", "\xC3", "\xA9", "\xE2\x82\xAC", "\xE2\x82", "\xF0\x9F\x98\x80",
    "\xF0\x9F\x98", "\xE0\xA0\x80", "\xE0\x9F\xBF", "\xED\x9F\xBF", "\xED\xA0\x80", "\xF0\x90\x80\x80",
    "\xF0\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xC0\xAF", "\xC1\xBF", "\xC2\x80",
    "\xF5\x80\x80\x80", "\xFF", "\xEF\xBF\xBF", "0123456789abcdefghijklmnopqrstuv"
};

/* Strings of random pieces in objects and arrays, moved across the blocks by leading blanks. */
static void check_generated(uint64_t *rng, size_t count)
{
    char text[1200];
    size_t c, npieces = sizeof pieces / sizeof *pieces;
    for (c = 0; c < count; c++) {
        size_t n, k, m = (size_t)(test_rand(rng) % 3) + 1, pad = (size_t)(test_rand(rng) % 64), s;
        memset(text, ' ', pad);
        n = pad;
        text[n++] = '{';
        for (s = 0; s < m; s++) {
            size_t count_pieces = (size_t)(test_rand(rng) % 24);
            n += (size_t)snprintf(text + n, sizeof text - n, "%s\"k%zu\":\"", s ? "," : "", s);
            for (k = 0; k < count_pieces; k++) {
                const char *piece = pieces[test_rand(rng) % npieces];
                size_t len = strlen(piece);
                memcpy(text + n, piece, len);
                n += len;
            }
            if (test_rand(rng) % 16 != 0) /* sometimes the string runs to the input's end */
                text[n++] = '"';
        }
        text[n++] = '}';
        check_text(text, n, "generated");
    }
}

/* Each piece at every place of a 64-byte block (and so of the 16- and
 * 32-byte ones), after plain ASCII and after a character past it: where a
 * \u escape's digits, a surrogate pair or a character are cut by a block's
 * end is a case each scan carries to the next block. */
static void check_every_place(void)
{
    char text[256];
    size_t npieces = sizeof pieces / sizeof *pieces, k, at, lead;
    for (k = 0; k < npieces; k++) {
        for (lead = 0; lead < 2; lead++) {
            for (at = 0; at < 130; at++) {
                size_t n, len = strlen(pieces[k]);
                memcpy(text, "[\"", 2);
                n = 2;
                if (lead) { /* a character past ASCII first: the plain scan stops there */
                    memcpy(text + n, "\xC3\xA9", 2);
                    n += 2;
                }
                memset(text + n, 'a', at);
                n += at;
                memcpy(text + n, pieces[k], len);
                n += len;
                memcpy(text + n, "\"]", 2);
                n += 2;
                check_text(text, n, "every place");
            }
        }
    }
}

int main(int argc, char **argv)
{
    uint64_t rng = 20261128;
    int i, have = 0;
    for (i = 0; i < (int)(sizeof isas / sizeof *isas); i++)
        if (aps_json_impl_skip_isa(isas[i]) == isas[i]) {
            printf("vector scan: %s\n", isas[i] == APS_JSON_ISA_SSE2   ? "SSE2"
                                          : isas[i] == APS_JSON_ISA_NEON ? "NEON"
                                          : isas[i] == APS_JSON_ISA_AVX2 ? "AVX2"
                                                                         : "AVX-512BW");
            have = 1;
        }
    if (!have)
        printf("no vector scan in this build: the scalar one only, against the reader\n");
    for (i = 1; i < argc; i++)
        check_folder(argv[i], &rng);
    check_every_place();
    check_generated(&rng, 200000);
    printf("%zu texts, %zu accepted, %zu vector skips compared with the scalar one\n", texts, accepted, compared);
    CHECK(accepted > texts / 50);
    return test_report();
}
