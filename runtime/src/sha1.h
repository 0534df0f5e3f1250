/*
 * sha1.h - SHA-1 (FIPS 180-4), internal to the runtime: the WebSocket
 * handshake needs it for Sec-WebSocket-Accept. Not for anything that needs
 * collision resistance.
 */
#ifndef APR_SHA1_H
#define APR_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define APR_SHA1_DIGEST_LEN 20

/* Hash state; start with apr_sha1_init. */
typedef struct apr_sha1 {
    uint32_t h[5];
    uint64_t total;    /* bytes hashed so far */
    uint8_t block[64]; /* partial block */
    size_t used;
} apr_sha1;

void apr_sha1_init(apr_sha1 *s);
/* Hashes `len` more bytes (`bytes` may be NULL when len is 0). */
void apr_sha1_update(apr_sha1 *s, const void *bytes, size_t len);
/* Writes the digest; `s` must be re-initialised before reuse. */
void apr_sha1_final(apr_sha1 *s, uint8_t out[APR_SHA1_DIGEST_LEN]);

#endif
