/*
 * websocket.c - RFC 6455 framing (see aps/ws.h).
 *
 * The decoder is a two-state machine: gathering a frame header (at most 14
 * bytes, checked as soon as each part is known so a bad frame fails at its
 * first bad byte), then copying the payload (unmasked on the way) into the
 * message storage or, for control frames, into the decoder's own 125 bytes,
 * which is what lets a ping arrive between two fragments of a message.
 */
#include "aps/ws.h"

#include "base64.h"
#include "sha1.h"

#include <stdint.h>
#include <string.h>

int aps_ws_close_code_valid(unsigned code)
{
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
           (code >= 3000 && code <= 4999);
}

unsigned aps_ws_close_code_for(aps_status status)
{
    switch (status) {
    case APS_OK: return 0;
    case APS_E_SYNTAX: return APS_WS_CLOSE_PROTOCOL_ERROR;
    case APS_E_UTF8: return APS_WS_CLOSE_INVALID_DATA;
    case APS_E_LIMIT: return APS_WS_CLOSE_TOO_BIG;
    default: return APS_WS_CLOSE_INTERNAL_ERROR;
    }
}

static int is_control(int opcode)
{
    return (opcode & 0x8) != 0;
}

static int known_opcode(int opcode)
{
    return opcode == APS_WS_CONTINUATION || opcode == APS_WS_TEXT ||
           opcode == APS_WS_BINARY || opcode == APS_WS_CLOSE || opcode == APS_WS_PING ||
           opcode == APS_WS_PONG;
}

void aps_ws_mask(uint8_t *bytes, size_t len, const uint8_t key[4], uint64_t pos)
{
    uint8_t k[8];
    size_t i = 0, j;
    for (j = 0; j < 8; j++)
        k[j] = key[(pos + j) & 3];
    /* Eight bytes at a time: the key pattern repeats every four bytes. */
    for (; i + 8 <= len; i += 8) {
        uint64_t w, m;
        memcpy(&w, bytes + i, 8);
        memcpy(&m, k, 8);
        w ^= m;
        memcpy(bytes + i, &w, 8);
    }
    for (; i < len; i++)
        bytes[i] ^= k[i & 7];
}

/* ------------------------------------------------------------------------ */
/* Decoder                                                                  */
/* ------------------------------------------------------------------------ */

void aps_ws_decoder_init(aps_ws_decoder *d, aps_ws_role role, void *storage, size_t cap,
                         aps_ws_message_fn on_message, void *user)
{
    memset(d, 0, sizeof *d);
    d->role = role;
    d->msg = storage;
    d->msg_cap = storage != NULL ? cap : 0;
    d->on_message = on_message;
    d->user = user;
}

unsigned aps_ws_decoder_close_code(const aps_ws_decoder *d)
{
    return aps_ws_close_code_for(d->failed);
}

/*
 * Fails the connection with `code` (already recorded by aps_error_set, whose
 * result it takes); every later push returns the same status.
 */
static aps_status fail(aps_ws_decoder *d, aps_status code)
{
    d->failed = code;
    return code;
}

static aps_status deliver(aps_ws_decoder *d, aps_ws_message *m, aps_error *err)
{
    aps_status st;
    if (d->on_message == NULL)
        return APS_OK;
    st = d->on_message(d->user, m);
    if (st != APS_OK)
        return fail(d, aps_error_set(err, st, (size_t)m->offset,
                    "WebSocket decoding stopped by a callback: %s",
                                          aps_status_str(st)));
    return APS_OK;
}

/* Checks the first two header bytes, which fix most of the frame's rules. */
static aps_status check_start(aps_ws_decoder *d, aps_error *err)
{
    uint8_t b0 = d->hdr[0], b1 = d->hdr[1];
    int opcode = b0 & 0x0F, len7 = b1 & 0x7F, masked = (b1 & 0x80) != 0;
    uint64_t at = d->frame_offset;
    if (b0 & 0x70)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket frame at offset %llu sets reserved bits 0x%llx, but no "
                    "extension was negotiated",
                    (unsigned long long)at, (unsigned long long)(b0 & 0x70) >> 4));
    if (!known_opcode(opcode))
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket frame at offset %llu has the unknown opcode 0x%llx",
                    (unsigned long long)at, (unsigned long long)opcode));
    if (is_control(opcode) && !(b0 & 0x80))
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket control frame (opcode 0x%llx) at offset %llu is fragmented",
                    (unsigned long long)opcode, (unsigned long long)at));
    if (is_control(opcode) && len7 > APS_WS_CONTROL_MAX)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket control frame at offset %llu is longer than 125 bytes "
                    "(length code %llu)",
                    (unsigned long long)at, (unsigned long long)len7));
    if (d->role == APS_WS_SERVER && !masked)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket frame at offset %llu from the client is not masked",
                    (unsigned long long)at));
    if (d->role == APS_WS_CLIENT && masked)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket frame at offset %llu from the server is masked",
                    (unsigned long long)at));
    if (opcode == APS_WS_CONTINUATION && d->msg_opcode == 0)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket continuation frame at offset %llu has no message to "
                    "continue",
                    (unsigned long long)at));
    if ((opcode == APS_WS_TEXT || opcode == APS_WS_BINARY) && d->msg_opcode != 0)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket data frame at offset %llu starts a new message inside "
                    "the fragmented message begun at offset %llu",
                    (unsigned long long)at, (unsigned long long)d->msg_offset));
    d->opcode = opcode;
    d->fin = (b0 & 0x80) != 0;
    d->masked = masked;
    d->hdr_need = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + (masked ? 4 : 0);
    return APS_OK;
}

/* The whole header is in: read the length and the mask, open the frame. */
static aps_status begin_payload(aps_ws_decoder *d, aps_error *err)
{
    int len7 = d->hdr[1] & 0x7F, i;
    uint64_t len = (uint64_t)len7, at = d->frame_offset;
    size_t key = 2;
    if (len7 == 126) {
        len = (uint64_t)d->hdr[2] << 8 | d->hdr[3];
        key = 4;
        if (len < 126)
            return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                        "WebSocket frame at offset %llu uses a 16-bit length for %llu "
                        "bytes (not the minimal encoding)",
                        (unsigned long long)at, (unsigned long long)len));
    } else if (len7 == 127) {
        for (len = 0, i = 0; i < 8; i++)
            len = len << 8 | d->hdr[2 + i];
        key = 10;
        if (len >> 63)
            return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                        "WebSocket frame at offset %llu has a 64-bit length with the most "
                        "significant bit set",
                        (unsigned long long)at));
        if (len < 65536)
            return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                        "WebSocket frame at offset %llu uses a 64-bit length for %llu "
                        "bytes (not the minimal encoding)",
                        (unsigned long long)at, (unsigned long long)len));
    }
    if (d->masked)
        memcpy(d->mask, d->hdr + key, 4);
    if (!is_control(d->opcode)) {
        if (d->opcode != APS_WS_CONTINUATION) {
            d->msg_opcode = d->opcode;
            d->msg_len = 0;
            d->msg_frames = 0;
            d->msg_offset = at;
            memset(&d->utf8, 0, sizeof d->utf8);
        }
        if (len > d->msg_cap - d->msg_len)
            return fail(d, aps_error_set(err, APS_E_LIMIT, (size_t)at,
                        "WebSocket message of at least %llu bytes exceeds the maximum "
                        "message size of %llu bytes",
                        (unsigned long long)(d->msg_len + len), (unsigned long long)d->msg_cap));
        d->msg_frames++;
    }
    d->payload_len = len;
    d->payload_done = 0;
    d->in_payload = 1;
    return APS_OK;
}

static aps_status close_frame(aps_ws_decoder *d, aps_ws_message *m, aps_error *err)
{
    uint64_t at = d->frame_offset, payload_at = d->offset - m->len;
    if (m->len == 1)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)at,
                    "WebSocket close frame at offset %llu has a 1-byte payload (a code "
                    "takes 2)",
                    (unsigned long long)at));
    m->close_code = APS_WS_CLOSE_NO_STATUS;
    if (m->len >= 2) {
        size_t bad;
        m->close_code = (unsigned)m->payload[0] << 8 | m->payload[1];
        if (!aps_ws_close_code_valid(m->close_code))
            return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)payload_at,
                        "WebSocket close frame at offset %llu carries the code %llu, "
                        "which may not be sent",
                        (unsigned long long)at, (unsigned long long)m->close_code));
        m->reason = (const char *)m->payload + 2;
        m->reason_len = m->len - 2;
        bad = aps_utf8_check(m->payload + 2, m->len - 2);
        if (bad != SIZE_MAX)
            return fail(d, aps_error_set(err, APS_E_UTF8, (size_t)(payload_at + 2 + bad),
                        "WebSocket close frame at offset %llu has a reason that is not "
                        "valid UTF-8 (byte %llu)",
                        (unsigned long long)at, (unsigned long long)bad));
    }
    d->closed = 1;
    return APS_OK;
}

static aps_status end_frame(aps_ws_decoder *d, aps_error *err)
{
    aps_ws_message m;
    aps_status st;
    d->in_payload = 0;
    d->hdr_len = 0;
    memset(&m, 0, sizeof m);
    m.reason = "";
    if (is_control(d->opcode)) {
        m.opcode = (aps_ws_opcode)d->opcode;
        m.payload = d->ctl;
        m.len = (size_t)d->payload_len;
        m.offset = d->frame_offset;
        m.frames = 1;
        if (d->opcode == APS_WS_CLOSE && (st = close_frame(d, &m, err)) != APS_OK)
            return st;
        return deliver(d, &m, err);
    }
    if (!d->fin)
        return APS_OK;
    if (d->msg_opcode == APS_WS_TEXT && !aps_utf8_complete(&d->utf8))
        return fail(d, aps_error_set(err, APS_E_UTF8, (size_t)d->offset,
                    "WebSocket text message at offset %llu ends inside a UTF-8 "
                    "sequence",
                    (unsigned long long)d->msg_offset));
    m.opcode = (aps_ws_opcode)d->msg_opcode;
    m.payload = d->msg;
    m.len = d->msg_len;
    m.offset = d->msg_offset;
    m.frames = d->msg_frames;
    d->msg_opcode = 0;
    return deliver(d, &m, err);
}

/* Copies up to `len` payload bytes from s, unmasking and checking them. */
static aps_status take_payload(aps_ws_decoder *d, const uint8_t *s, size_t len,
                               size_t *used, aps_error *err)
{
    uint64_t left = d->payload_len - d->payload_done;
    size_t n = left < len ? (size_t)left : len;
    uint8_t *dst = is_control(d->opcode) ? d->ctl + d->payload_done : d->msg + d->msg_len;
    *used = n;
    if (n > 0) {
        memcpy(dst, s, n);
        if (d->masked)
            aps_ws_mask(dst, n, d->mask, d->payload_done);
        if (!is_control(d->opcode) && d->msg_opcode == APS_WS_TEXT) {
            size_t bad = aps_utf8_feed(&d->utf8, dst, n);
            if (bad != SIZE_MAX)
                return fail(d, aps_error_set(err, APS_E_UTF8, (size_t)(d->offset + bad),
                            "WebSocket text message at offset %llu is not valid UTF-8 "
                            "(byte at offset %llu)",
                            (unsigned long long)d->msg_offset,
                            (unsigned long long)(d->offset + bad)));
        }
        d->payload_done += n;
        d->offset += n;
        if (!is_control(d->opcode))
            d->msg_len += n;
    }
    return d->payload_done == d->payload_len ? end_frame(d, err) : APS_OK;
}

aps_status aps_ws_decoder_push(aps_ws_decoder *d, const void *bytes, size_t len,
                               aps_error *err)
{
    const uint8_t *s = bytes;
    size_t i = 0;
    if (d->failed != APS_OK)
        return aps_error_set(err, d->failed, (size_t)d->offset,
                             "WebSocket connection already failed (send close code %u)",
                             aps_ws_decoder_close_code(d));
    while (i < len) {
        aps_status st = APS_OK;
        if (d->in_payload) {
            size_t used;
            st = take_payload(d, s + i, len - i, &used, err);
            i += used;
        } else if (d->closed) {
            return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)d->offset,
                        "WebSocket bytes at offset %llu follow the close frame",
                        (unsigned long long)d->offset));
        } else {
            if (d->hdr_len == 0) {
                d->frame_offset = d->offset;
                d->hdr_need = 2;
            }
            while (i < len && d->hdr_len < d->hdr_need) {
                d->hdr[d->hdr_len++] = s[i++];
                d->offset++;
            }
            if (d->hdr_len == 2 && d->hdr_need == 2)
                st = check_start(d, err);
            if (st == APS_OK && d->hdr_len == d->hdr_need) {
                st = begin_payload(d, err);
                if (st == APS_OK && d->payload_len == 0) {
                    size_t used;
                    st = take_payload(d, s + i, 0, &used, err);
                }
            }
        }
        if (st != APS_OK)
            return st;
    }
    return APS_OK;
}

aps_status aps_ws_decoder_finish(aps_ws_decoder *d, aps_error *err)
{
    if (d->failed != APS_OK)
        return aps_error_set(err, d->failed, (size_t)d->offset,
                             "WebSocket connection already failed (send close code %u)",
                             aps_ws_decoder_close_code(d));
    if (d->in_payload || d->hdr_len > 0)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)d->offset,
                    "WebSocket connection ended inside the frame at offset %llu",
                    (unsigned long long)d->frame_offset));
    if (d->msg_opcode != 0)
        return fail(d, aps_error_set(err, APS_E_SYNTAX, (size_t)d->offset,
                    "WebSocket connection ended inside the fragmented message at offset "
                    "%llu",
                    (unsigned long long)d->msg_offset));
    return APS_OK;
}

/* ------------------------------------------------------------------------ */
/* Encoder                                                                  */
/* ------------------------------------------------------------------------ */

aps_status aps_ws_encode_header(uint8_t out[APS_WS_HEADER_MAX], size_t *out_len, int fin,
                                aps_ws_opcode opcode, uint64_t payload_len,
                                const uint8_t *mask_key, aps_error *err)
{
    size_t n = 2;
    int i;
    if (!known_opcode((int)opcode))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "WebSocket opcode 0x%x is not one RFC 6455 defines",
                             (unsigned)opcode);
    if (is_control((int)opcode) && (!fin || payload_len > APS_WS_CONTROL_MAX))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "WebSocket control frames must be unfragmented and at most "
                             "125 bytes (got %llu bytes, fin %d)",
                             (unsigned long long)payload_len, fin != 0);
    if (payload_len >> 63)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "WebSocket payload length %llu needs the 64th bit",
                             (unsigned long long)payload_len);
    out[0] = (uint8_t)((fin ? 0x80 : 0) | (unsigned)opcode);
    out[1] = mask_key != NULL ? 0x80 : 0;
    if (payload_len < 126) {
        out[1] |= (uint8_t)payload_len;
    } else if (payload_len < 65536) {
        out[1] |= 126;
        out[n++] = (uint8_t)(payload_len >> 8);
        out[n++] = (uint8_t)payload_len;
    } else {
        out[1] |= 127;
        for (i = 7; i >= 0; i--)
            out[n++] = (uint8_t)(payload_len >> (8 * i));
    }
    if (mask_key != NULL) {
        memcpy(out + n, mask_key, 4);
        n += 4;
    }
    *out_len = n;
    return APS_OK;
}

aps_status aps_ws_encode_frame(uint8_t *out, size_t cap, size_t *out_len, int fin,
                               aps_ws_opcode opcode, const void *payload, size_t len,
                               const uint8_t *mask_key, aps_error *err)
{
    uint8_t hdr[APS_WS_HEADER_MAX];
    size_t hlen = 0; /* (set on success; gcc -O2 cannot see that and warned) */
    aps_status st = aps_ws_encode_header(hdr, &hlen, fin, opcode, len, mask_key, err);
    if (st != APS_OK)
        return st;
    if (cap > (size_t)PTRDIFF_MAX) /* no object is larger; gcc warned of copies beyond it */
        cap = (size_t)PTRDIFF_MAX;
    if (hlen > cap || len > cap - hlen)
        return aps_error_set(err, APS_E_LIMIT, SIZE_MAX,
                             "WebSocket frame of %zu bytes does not fit in %zu bytes",
                             hlen + len, cap);
    memcpy(out, hdr, hlen);
    if (len > 0) {
        memcpy(out + hlen, payload, len);
        if (mask_key != NULL)
            aps_ws_mask(out + hlen, len, mask_key, 0);
    }
    *out_len = hlen + len;
    return APS_OK;
}

aps_status aps_ws_encode_close(uint8_t *out, size_t cap, size_t *out_len, unsigned code,
                               const char *reason, size_t reason_len,
                               const uint8_t *mask_key, aps_error *err)
{
    uint8_t payload[APS_WS_CONTROL_MAX];
    if (code == 0 && reason_len > 0)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "WebSocket close reason given without a close code");
    if (code != 0 && !aps_ws_close_code_valid(code))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "WebSocket close code %u may not be sent", code);
    if (reason_len > APS_WS_CONTROL_MAX - 2)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "WebSocket close reason of %zu bytes exceeds 123", reason_len);
    if (reason_len > 0 && aps_utf8_check((const uint8_t *)reason, reason_len) != SIZE_MAX)
        return aps_error_set(err, APS_E_ARGUMENT,
                             aps_utf8_check((const uint8_t *)reason, reason_len),
                             "WebSocket close reason is not valid UTF-8");
    if (code == 0)
        return aps_ws_encode_frame(out, cap, out_len, 1, APS_WS_CLOSE, NULL, 0, mask_key,
                                   err);
    payload[0] = (uint8_t)(code >> 8);
    payload[1] = (uint8_t)code;
    if (reason_len > 0)
        memcpy(payload + 2, reason, reason_len);
    return aps_ws_encode_frame(out, cap, out_len, 1, APS_WS_CLOSE, payload, 2 + reason_len,
                               mask_key, err);
}

/* ------------------------------------------------------------------------ */
/* Handshake                                                                */
/* ------------------------------------------------------------------------ */

aps_status aps_ws_accept_key(const char *key, size_t key_len,
                             char out[APS_WS_ACCEPT_LEN + 1], aps_error *err)
{
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    uint8_t nonce[16], digest[APS_SHA1_DIGEST_LEN];
    aps_sha1 h;
    if (key == NULL || key_len != 24 || aps_base64_decode(key, key_len, nonce, sizeof nonce) != 16)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "Sec-WebSocket-Key must be the base64 form of 16 bytes "
                             "(24 characters)");
    aps_sha1_init(&h);
    aps_sha1_update(&h, key, key_len);
    aps_sha1_update(&h, guid, sizeof guid - 1);
    aps_sha1_final(&h, digest);
    aps_base64_encode(digest, sizeof digest, out);
    out[APS_WS_ACCEPT_LEN] = '\0';
    return APS_OK;
}
