/*
 * test_find_stop.c - aps_scan_find_stop_in (aps/scan.h) against
 * aps_scan_find_stop: the same answer for every start position in inputs
 * of 0 to 48 bytes, with each kind of stop ('"', '\\', a control
 * character, a byte past ASCII) at every position after the start, or
 * none; and aps_scan_plain_in, which tells from the same masks whether
 * that stop is the closing '"'. The last 15 bytes of an input are where
 * both read one 16-byte load ending at the input's end instead of byte
 * by byte; each input sits alone in a buffer of its exact size, so that
 * a read outside it is caught by the sanitizer build.
 */
#include "aps/scan.h"
#include "test.h"

#include <stdlib.h>

int main(void)
{
    static const char stops[] = { '"', '\\', '\x01', '\x1F', (char)0x80, (char)0xE9, (char)0xFF };
    size_t len, start, at, k, cases = 0;
    const char *stop;
    for (len = 0; len <= 48; len++) {
        char *buf = (char *)malloc(len != 0 ? len : 1);
        CHECK(buf != NULL);
        if (buf == NULL)
            return test_report();
        for (start = 0; start <= len; start++) {
            /* at == len: no stop in the input */
            for (at = start; at <= len; at++) {
                for (k = 0; k < sizeof stops; k++) {
                    const char *end = buf + len;
                    memset(buf, 'a', len);
                    if (at < len)
                        buf[at] = stops[k];
                    /* a stop before the start must not count */
                    if (start > 0)
                        buf[start - 1] = '"';
                    CHECK(aps_scan_find_stop_in(buf, buf + start, end) == aps_scan_find_stop(buf + start, end));
                    CHECK(aps_scan_find_stop_in(buf, buf + start, end) == buf + at);
                    if (at < len && stops[k] == '"') {
                        CHECK(aps_scan_plain_in(buf, buf + start, end, &stop) == buf + at + 1);
                    } else {
                        stop = NULL;
                        CHECK(aps_scan_plain_in(buf, buf + start, end, &stop) == NULL && stop == buf + at);
                    }
                    cases++;
                    if (at == len)
                        break; /* the stop kind does not matter */
                }
            }
        }
        free(buf);
    }
    printf("%zu cases\n", cases);
    return test_report();
}
