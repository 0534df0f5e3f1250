/*
 * base64.h - the standard base64 alphabet with padding (RFC 4648 section 4),
 * internal to the runtime: the WebSocket handshake uses it.
 */
#ifndef APS_BASE64_H
#define APS_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "aps/common.h"

/* Length of the encoding of `len` bytes, without a NUL. */
#define APS_BASE64_ENCODED_LEN(len) ((((len) + 2) / 3) * 4)

/* Encodes `len` bytes into out (APS_BASE64_ENCODED_LEN(len) chars, no NUL). */
APS_INTERNAL void aps_base64_encode(const uint8_t *in, size_t len, char *out);

/*
 * Decodes canonical padded base64 (unused bits zero, no whitespace) into
 * out[0..cap). Returns the decoded length, or SIZE_MAX when the text is not
 * canonical base64 or does not fit.
 */
APS_INTERNAL size_t aps_base64_decode(const char *in, size_t len, uint8_t *out, size_t cap);

#endif
