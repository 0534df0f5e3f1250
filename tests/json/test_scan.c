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
 * same for every escape letter against aps_json_impl_unescape_one.
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
