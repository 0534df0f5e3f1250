/*
 * test_lines.c - the SSE parser's line scan (runtime/framing/lines.h)
 * against a byte loop and aps_utf8_check.
 *
 * The vector passes (SSE2, and AVX2 and AVX-512 where the CPU has them, NEON on Arm) must
 * list the same line ends and bytes past ASCII as the byte loop, for every
 * block count and offset. The scan must stop at each CR or LF in turn (the
 * LF of a CRLF skipped when the caller starts past it, as the parser does),
 * may call a line proven only when aps_utf8_check agrees (sound), and must
 * prove every whole valid line that the push does not cut (the parser's
 * speed depends on that). The buffers put every lead byte past ASCII, with
 * following bytes from the edges of the continuation ranges, at every place
 * around the 64-byte blocks and the 1 KiB chunks, and random text of valid
 * characters, line ends and bad bytes over several chunks.
 */
#include "aps/utf8.h"
#include "lines.h"
#include "test.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LEN (3 * APS_LINES_CHUNK + 200)

/* Each vector pass and the byte loop on blocks at p: the same ends and masks. */
static void check_index(const char *p, size_t blocks, unsigned off, long *mismatches)
{
    uint16_t want[APS_LINES_CHUNK + 4], got[APS_LINES_CHUNK + 4];
    uint64_t want_high[APS_LINES_BLOCKS], got_high[APS_LINES_BLOCKS];
    uint64_t want_past, got_past;
    unsigned n = aps_lines_index_bytes(p, blocks, off, want, want_high, &want_past), m, path, paths = 1;
#if APS_LINES_HAVE_AVX2
    /* the one chosen at run time, SSE2, and AVX2 and AVX-512 where the CPU has them */
    paths = !__builtin_cpu_supports("bmi")        ? 2
            : __builtin_cpu_supports("avx512bw") ? 4
            : __builtin_cpu_supports("avx2")     ? 3
                                                 : 2;
#endif
    for (path = 0; path < paths; path++) {
#if APS_LINES_HAVE_AVX2
        m = path == 0   ? aps_lines_index(p, blocks, off, got, got_high, &got_past)
            : path == 1 ? aps_lines_index_sse2(p, blocks, off, got, got_high, &got_past)
            : path == 2 ? aps_lines_index_avx2(p, blocks, off, got, got_high, &got_past)
                        : aps_lines_index_avx512(p, blocks, off, got, got_high, &got_past);
#else
        m = aps_lines_index(p, blocks, off, got, got_high, &got_past);
#endif
        if (m != n || got_past != want_past || memcmp(got, want, n * sizeof *got) != 0 ||
            memcmp(got_high, want_high, blocks * sizeof *got_high) != 0)
            ++*mismatches;
    }
}

/*
 * Walks s[0..n) as the SSE parser does and checks each line against the
 * byte loop and the exact UTF-8 check.
 */
static void check_scan(const unsigned char *s, size_t n, long *mismatches)
{
    int check;
    for (check = 0; check < 2; check++) {
        aps_lines ls;
        size_t from = 0;
        aps_lines_init(&ls, (const char *)s, n, check);
        while (from < n) {
            size_t stop = from, eol;
            int proven = -1, valid;
            while (stop < n && s[stop] != '\n' && s[stop] != '\r')
                stop++;
            eol = aps_lines_next(&ls, from, &proven);
            if (eol != stop) {
                ++*mismatches;
                return;
            }
            valid = aps_utf8_check(s + from, eol - from) == SIZE_MAX;
            if (proven && (!check || !valid))
                ++*mismatches; /* unsound, or proof asked not to be made */
            if (check && !proven && valid && eol < n)
                ++*mismatches; /* a whole valid line it should have proven */
            if (eol == n)
                break;
            from = eol + 1 + (s[eol] == '\r' && eol + 1 < n && s[eol + 1] == '\n');
        }
    }
}

int main(void)
{
    static unsigned char buf[MAX_LEN];
    static const unsigned char follow[] = { 0x00, 0x0A, 0x0D, 0x41, 0x7F, 0x80, 0x8F,
                                            0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF };
    static const char *const chars[] = { "a", "bc", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\n", "\r", "\r\n",
                                         "\xED\xA0\x80", "\xC0", "\x80" };
    long mismatches = 0;
    uint64_t rng = 11;
    unsigned lead, i, j, k;
    size_t n, blocks, at;

    /* The vector passes: random bytes biased to line ends and bytes past ASCII. */
    for (i = 0; i < 2000; i++) {
        for (at = 0; at < APS_LINES_CHUNK; at++) {
            uint64_t r = test_rand(&rng) % 16;
            buf[at] = r == 0 ? '\n' : r == 1 ? '\r' : r < 4 ? (unsigned char)(0x80 + test_rand(&rng) % 128)
                                                            : (unsigned char)(test_rand(&rng) % 128);
        }
        blocks = 1 + i % APS_LINES_BLOCKS;
        check_index((const char *)buf, blocks, (unsigned)(i % 7) * APS_LINES_BLOCK, &mismatches);
    }
    CHECK_INT(mismatches, 0);

    /* Every lead past ASCII with following bytes, at places around the blocks and the first chunk's end. */
    for (lead = 0x80; lead < 256; lead++) {
        for (i = 0; i < sizeof follow; i++) {
            for (j = 0; j < sizeof follow; j++) {
                for (k = 0; k < sizeof follow; k += 3) {
                    size_t pos = (lead * 7 + i * 13 + j * 3 + k) % 200;
                    n = APS_LINES_CHUNK + 120 - (lead % 7) - (k % 2) * 70;
                    if (lead % 3 == 0)
                        pos += APS_LINES_CHUNK - 100; /* across the chunk's end */
                    memset(buf, 'a', n);
                    buf[pos] = (unsigned char)lead;
                    buf[pos + 1] = follow[i];
                    buf[pos + 2] = follow[j];
                    buf[pos + 3] = follow[k];
                    buf[pos + 40] = '\n';
                    buf[(pos + 97) % n] = '\r';
                    buf[n - 1 - (lead % 5)] = '\n';
                    check_scan(buf, n - (lead % 4 == 1 ? pos % 60 : 0), &mismatches);
                }
            }
        }
    }
    CHECK_INT(mismatches, 0);

    /* Random text over several chunks: valid characters, line ends (CRLF across blocks too), bad bytes. */
    for (i = 0; i < 3000; i++) {
        size_t len = (size_t)(test_rand(&rng) % MAX_LEN);
        n = 0;
        while (n < len) {
            uint64_t r = test_rand(&rng) % 1000;
            const char *c = chars[r < 600   ? 0
                                  : r < 700 ? 1
                                  : r < 780 ? 2
                                  : r < 860 ? 3
                                  : r < 920 ? 4
                                  : r < 950 ? 5
                                  : r < 965 ? 6
                                  : r < 990 ? 7
                                  : r < 994 ? 8
                                  : r < 997 ? 9
                                            : 10];
            size_t m;
            if (i % 2 == 0 && r >= 994)
                c = chars[0]; /* half the texts without a bad byte */
            m = strlen(c);
            if (n + m > sizeof buf)
                break;
            memcpy(buf + n, c, m);
            n += m;
        }
        check_scan(buf, n, &mismatches);
        if (n > 0)
            check_scan(buf + n / 3, n - n / 3, &mismatches); /* a push that starts inside a character */
    }
    CHECK_INT(mismatches, 0);
    return test_report();
}
