/*
 * sha1.h - SHA-1 (FIPS 180-4), internal to the runtime: the WebSocket
 * handshake needs it for Sec-WebSocket-Accept. Not for anything that needs
 * collision resistance.
 */
#ifndef APS_SHA1_H
#define APS_SHA1_H

#include <stddef.h>
#include <stdint.h>

#include "aps/common.h"

#define APS_SHA1_DIGEST_LEN 20

/* Hash state; start with aps_sha1_init. */
typedef struct aps_sha1 {
    uint32_t h[5];
    uint64_t total;    /* bytes hashed so far */
    uint8_t block[64]; /* partial block */
    size_t used;
} aps_sha1;

APS_INTERNAL void aps_sha1_init(aps_sha1 *s);
/* Hashes `len` more bytes (`bytes` may be NULL when len is 0). */
APS_INTERNAL void aps_sha1_update(aps_sha1 *s, const void *bytes, size_t len);
/* Writes the digest; `s` must be re-initialised before reuse. */
APS_INTERNAL void aps_sha1_final(aps_sha1 *s, uint8_t out[APS_SHA1_DIGEST_LEN]);

#endif
