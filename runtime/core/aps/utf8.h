/*
 * aps_utf8.h - strict UTF-8 validation (RFC 3629): no overlong forms, no
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF. Incremental, so a
 * message split over several chunks or WebSocket fragments is checked as it
 * arrives, and fails at the first bad byte.
 *
 * Thread-safety: reentrant; a state belongs to one caller at a time.
 */
#ifndef APS_UTF8_H
#define APS_UTF8_H

#include "aps/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Progress through a multi-byte sequence. Zero-initialise to start. */
typedef struct aps_utf8_state {
    uint32_t need;  /* continuation bytes still expected */
    uint8_t lo, hi; /* allowed range of the next continuation byte */
} aps_utf8_state;

#define APS_UTF8_STATE_INIT { 0, 0x80, 0xBF }

/*
 * Checks `len` more bytes. Returns SIZE_MAX when all are valid so far (the
 * input may still end inside a sequence: see aps_utf8_complete), otherwise
 * the offset within this chunk of the first byte that cannot be valid.
 */
size_t aps_utf8_feed(aps_utf8_state *st, const uint8_t *s, size_t len);

/* True when the bytes fed so far end on a character boundary. */
int aps_utf8_complete(const aps_utf8_state *st);

/* Offset of the first invalid byte of a whole buffer, SIZE_MAX if valid. */
size_t aps_utf8_check(const uint8_t *s, size_t len);

/* Encodes code point `cp` (<= 0x10FFFF, not a surrogate) into out[4]; returns the byte count, 0 if invalid. */
size_t aps_utf8_encode(uint32_t cp, uint8_t out[4]);

#ifdef __cplusplus
}
#endif
#endif /* APS_UTF8_H */
