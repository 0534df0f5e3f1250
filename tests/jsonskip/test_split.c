/*
 * test_split.c - the validating skip (aps_json_impl_skip_fast) against the
 * pull reader on texts built so that its 16-byte string steps split what
 * they check: backslash runs, \u escapes and surrogate pairs, UTF-8
 * characters good and bad, control characters and closing quotes, each at
 * every position of a step, and strings that end at the input's last byte.
 *
 * The rule the fast paths rely on, both ways: what the skip accepts, the
 * reader accepts; what the reader accepts, the skip accepts too (it may give
 * up only on escaped member names, which these texts do not have). Each text
 * sits alone in a buffer of its exact size, so a read past its end is caught
 * by the sanitizer build.
 */
#include "aps/json_impl.h"
#include "reader_accepts.h"
#include "test.h"
#include "test_util.h"

#include <stdlib.h>

/* Pieces of string content: each is valid or not on its own, or only next to another. */
static const char *const pieces[] = {
    "a", "abcdefghijklmnop", " ", "\\", "\\\\", "\\\\\\", "\\\"", "\\n", "\\/", "\\b", "\\x", "\\u",
    "\\u00e9", "\\u00E9", "\\u12", "\\uD83D", "\\uDE00", "\\uD83D\\uDE00", "\\uDBFF\\uDFFF", "\\uDC00",
    "\\uD800\\u0041", "u", "D", "0", "\"", "\x01", "\x1F", "\x7F", "\xC3\xA9", "\xC3", "\xA9", "\xE2\x82\xAC",
    "\xE2\x82", "\xF0\x9F\x98\x80", "\xF0\x9F\x98", "\xE0\xA0\x80", "\xE0\x9F\xBF", "\xED\x9F\xBF",
    "\xED\xA0\x80", "\xF0\x90\x80\x80", "\xF0\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF", "\xF4\x90\x80\x80",
    "\xC0\xAF", "\xC1\xBF", "\xC2\x80", "\xF5\x80\x80\x80", "\xFF", "\xEF\xBF\xBF"
};

/* The skip's answer on a copy of exactly len bytes. */
static int skip_accepts(const char *text, size_t len)
{
    char *json = (char *)malloc(len);
    const char *end, *p;
    int ok;
    if (json == NULL)
        return -1;
    memcpy(json, text, len);
    end = json + len;
    p = aps_json_impl_skip_fast(aps_scan_ws(json, end), end, 64, 0);
    ok = p != NULL && aps_scan_ws(p, end) == end;
    free(json);
    return ok;
}

int main(void)
{
    uint64_t rng = 20261126;
    char text[600];
    size_t cases, valid = 0, npieces = sizeof pieces / sizeof *pieces;
    for (cases = 0; cases < 200000; cases++) {
        size_t n = 0, k, count = (size_t)(test_rand(&rng) % 24), pad = (size_t)(test_rand(&rng) % 64);
        int in_object = (int)(test_rand(&rng) % 2), closed = test_rand(&rng) % 16 != 0, ok;
        /* Leading blanks move every later byte across the steps (up to 64 bytes). */
        memset(text, ' ', pad);
        n = pad;
        memcpy(text + n, in_object ? "{\"k\":\"" : "[\"", in_object ? 6 : 2);
        n += in_object ? 6 : 2;
        for (k = 0; k < count; k++) {
            const char *piece = pieces[test_rand(&rng) % npieces];
            size_t len = strlen(piece);
            memcpy(text + n, piece, len);
            n += len;
        }
        /* Mostly closed; sometimes the string runs to the input's end. */
        if (closed) {
            memcpy(text + n, in_object ? "\"}" : "\"]", 2);
            n += 2;
        }
        ok = reader_accepts(text, n);
        valid += (size_t)ok;
        CHECK(skip_accepts(text, n) == ok);
    }
    printf("%zu texts, %zu valid\n", cases, valid);
    CHECK(valid > cases / 50);
    return test_report();
}
