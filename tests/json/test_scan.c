/*
 * test_scan.c - the string scan of aps/scan.h against the reference UTF-8
 * checker and escape decoder, exhaustively over short byte sequences.
 *
 * aps_scan_string checks each character past ASCII where its vector scan
 * stops (aps_scan_utf8_char) instead of running aps_utf8_check over the
 * whole string; every fast decoder relies on it to refuse what the reader
 * refuses. Here every lead byte past ASCII or below 0x20, followed by every
 * pair of bytes (and, for four-byte leads, a third from the boundaries of the
 * continuation range), sits inside a JSON string; the scan must accept it
 * exactly when the bytes are valid UTF-8 without control characters. The
 * same for every escape letter against aps_json_impl_unescape_one. And the
 * line scan (aps_scan_line) that the SSE parser proves UTF-8 with, against
 * a byte loop and aps_utf8_check.
 */
#include "aps/json_impl.h"
#include "aps/scan.h"
#include "aps/utf8.h"
#include "test.h"
#include "test_util.h"

/* Does aps_scan_string accept the string with content s[0..n), and end it where it should? */
static int scan_accepts(const unsigned char *s, size_t n, int *escaped)
{
    char text[16];
    const char *end;
    text[0] = '"';
    memcpy(text + 1, s, n);
    text[n + 1] = '"';
    end = aps_scan_string(text, text + n + 2, escaped);
    return end == text + n + 2;
}

/* What the reader's rules say about the content s[0..n) without quotes or backslashes. */
static int reference_accepts(const unsigned char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (s[i] < 0x20)
            return 0;
    }
    return aps_utf8_check(s, n) == SIZE_MAX;
}

/* Every sequence of n bytes from the lead, then bytes from `next` (count m) for positions 1.. */
static void check_sequences(unsigned lead, const unsigned char *next, size_t m, size_t n, long *mismatches)
{
    unsigned char s[4];
    size_t i, j, k;
    int escaped;
    s[0] = (unsigned char)lead;
    for (i = 0; i < m; i++) {
        s[1] = next[i];
        for (j = 0; j < (n > 2 ? m : 1); j++) {
            s[2] = next[j];
            for (k = 0; k < (n > 3 ? m : 1); k++) {
                s[3] = next[k];
                if (scan_accepts(s, n, &escaped) != reference_accepts(s, n) || escaped)
                    ++*mismatches;
            }
        }
    }
}

/*
 * aps_scan_line's paths (SSE2, and AVX2 where the CPU has it) on the line
 * s[at..n) of a buffer s[0..n): each must stop at
 * the first CR or LF, and may call the bytes before proven UTF-8 only when
 * aps_utf8_check agrees; where the text is whole valid characters and the
 * character at the stop is not cut, it must prove it (the SSE parser's fast
 * path depends on that, not only its soundness).
 */
static void check_line(const unsigned char *s, size_t at, size_t n, long *mismatches)
{
    size_t stop = at;
    int valid = -1;
    const char *got;
    while (stop < n && s[stop] != '\n' && s[stop] != '\r')
        stop++;
    int path, paths = 1;
#if APS_SCAN_HAVE_LINE_AVX2
    paths = n >= 64 && __builtin_cpu_supports("avx2") ? 2 : 1; /* the vector paths, each against the reference */
#endif
    for (path = 0; path < paths; path++) {
        const char *b = (const char *)s;
#if APS_SCAN_HAVE_LINE_AVX2
        got = path ? aps_scan_line_avx2(b, b + at, b + n, 1, &valid) : aps_scan_line_sse2(b, b + at, b + n, 1, &valid);
#else
        got = aps_scan_line_sse2(b, b + at, b + n, 1, &valid);
#endif
        if (got != b + stop) {
            ++*mismatches;
            return;
        }
        if (valid && aps_utf8_check(s + at, stop - at) != SIZE_MAX)
            ++*mismatches; /* unsound */
        if (!valid && stop < n && aps_utf8_check(s + at, stop - at) == SIZE_MAX)
            ++*mismatches; /* a whole valid line it should have proven */
#if APS_SCAN_HAVE_LINE_AVX2
        got = path ? aps_scan_line_avx2(b, b + at, b + n, 0, &valid) : aps_scan_line_sse2(b, b + at, b + n, 0, &valid);
#else
        got = aps_scan_line_sse2(b, b + at, b + n, 0, &valid);
#endif
        if (got != b + stop || valid)
            ++*mismatches;
    }
}

/* Every lead past ASCII with every following byte, at every place around the 32-byte steps. */
static void check_lines(long *mismatches)
{
    unsigned char buf[160];
    const unsigned char follow[] = { 0x00, 0x0A, 0x0D, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF };
    unsigned lead, i, j, k, at;
    uint64_t rng = 7;
    for (lead = 0x80; lead < 256; lead++) {
        for (i = 0; i < sizeof follow; i++) {
            for (j = 0; j < sizeof follow; j++) {
                for (k = 0; k < sizeof follow; k += 3) {
                    size_t pos = (size_t)((lead + i * 7 + j * 3 + k) % 150);
                    memset(buf, 'a', sizeof buf);
                    buf[pos] = (unsigned char)lead;
                    if (pos + 1 < sizeof buf)
                        buf[pos + 1] = follow[i];
                    if (pos + 2 < sizeof buf)
                        buf[pos + 2] = follow[j];
                    if (pos + 3 < sizeof buf)
                        buf[pos + 3] = follow[k];
                    buf[sizeof buf - 1 - (lead % 5)] = '\n';
                    for (at = 0; at < 80; at += 13)
                        check_line(buf, at, sizeof buf - (lead % 7) - (k % 2) * 70, mismatches);
                }
            }
        }
    }
    /* Random text of valid characters, with line ends and now and then a bad byte. */
    for (i = 0; i < 20000; i++) {
        static const char *const chars[] = { "a", "bc", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\n", "\r", "\xED\xA0\x80", "\xC0" };
        size_t n = 0, len = (size_t)(test_rand(&rng) % 158);
        while (n < len) {
            uint64_t r = test_rand(&rng) % 100;
            const char *c = chars[r < 60 ? 0 : r < 70 ? 1 : r < 78 ? 2 : r < 86 ? 3 : r < 92 ? 4 : r < 95 ? 5 : r < 97 ? 6 : r < 99 ? 7 : 8];
            size_t m = strlen(c);
            if (n + m > sizeof buf)
                break;
            memcpy(buf + n, c, m);
            n += m;
        }
        check_line(buf, n > 0 ? (size_t)(test_rand(&rng) % n) : 0, n, mismatches);
    }
}

int main(void)
{
    unsigned char all[254], edges[6] = { 0x41, 0x7F, 0x80, 0x8F, 0xBF, 0xC0 };
    unsigned b, n = 0, lead;
    long mismatches = 0;
    int escaped;
    for (b = 0; b < 256; b++) {
        if (b != '"' && b != '\\')
            all[n++] = (unsigned char)b;
    }
    /* Leads below 0x20 or past ASCII, with two following bytes of any value (quotes and
     * backslashes aside: they end or escape the string, covered by the reader's tests). */
    for (lead = 0; lead < 256; lead++) {
        if (lead >= 0x20 && lead < 0x80)
            continue;
        check_sequences(lead, all, n, 1, &mismatches);
        check_sequences(lead, all, n, 2, &mismatches);
        check_sequences(lead, all, n, 3, &mismatches);
        if (lead >= 0xF0)
            check_sequences(lead, edges, sizeof edges, 4, &mismatches);
    }
    CHECK_INT(mismatches, 0);
    check_lines(&mismatches);
    CHECK_INT(mismatches, 0);

    /* Characters cut short by the string's end, and a continuation byte that is the quote. */
    {
        const char cut[] = "\"\xE2\x82\"", quote_cont[] = "\"\xC3\"\xA9\"";
        CHECK(aps_scan_string(cut, cut + 4, &escaped) == NULL);
        CHECK(aps_scan_string(quote_cont, quote_cont + 5, &escaped) == NULL);
        CHECK(aps_scan_string(cut, cut + 2, &escaped) == NULL); /* input ends inside the character */
    }

    /* Every escape letter: accepted exactly when the reader's unescaping accepts it. */
    for (b = 0x20; b < 0x80; b++) {
        char text[16];
        const char *bad, *why;
        aps_status code;
        int ok_ref, ok_scan;
        memcpy(text, "\"a\\?0041z\"", 10);
        text[3] = (char)b;
        ok_ref = aps_json_impl_unescape_one(text + 2, text + 10, NULL, NULL, &code, &bad, &why) != NULL;
        ok_scan = aps_scan_string(text, text + 10, &escaped) == text + 10;
        CHECK_INT(ok_scan, ok_ref);
        if (ok_scan)
            CHECK(escaped);
    }
    /* Surrogate escapes: a pair is one character, a lone half is refused. */
    {
        const char pair[] = "\"\\ud83d\\ude00\"", lone[] = "\"\\ud83d x\"", low[] = "\"\\ude00\"";
        CHECK(aps_scan_string(pair, pair + sizeof pair - 1, &escaped) == pair + sizeof pair - 1);
        CHECK(aps_scan_string(lone, lone + sizeof lone - 1, &escaped) == NULL);
        CHECK(aps_scan_string(low, low + sizeof low - 1, &escaped) == NULL);
    }
    return test_report();
}
