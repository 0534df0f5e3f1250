/*
 * aps/ws.h - WebSocket message framing (RFC 6455, no extensions): an
 * incremental frame decoder that reassembles messages whatever way the bytes
 * are chunked, a frame encoder, close-code rules, and the
 * Sec-WebSocket-Accept value of the opening handshake.
 *
 * The decoder enforces everything RFC 6455 section 5 asks of a receiver:
 * masking by role, reserved bits and unknown opcodes rejected, minimal length
 * encodings with the 64-bit MSB clear, control frames at most 125 bytes and
 * never fragmented (but allowed between the fragments of a data message),
 * fragment order, UTF-8 text (checked as it arrives), and valid close frames.
 * Any violation fails the connection: push returns the error and
 * aps_ws_decoder_close_code says which code to send in the closing frame.
 *
 * Example (server side):
 *
 *     static aps_status on_message(void *user, const aps_ws_message *m)
 *     {
 *         if (m->opcode == APS_WS_TEXT)
 *             return handle_json(m->payload, m->len);
 *         ...
 *     }
 *
 *     aps_ws_decoder d;
 *     aps_ws_decoder_init(&d, APS_WS_SERVER, storage, sizeof storage, on_message, ctx);
 *     if (aps_ws_decoder_push(&d, buf, n, &err) != APS_OK)
 *         send_close(aps_ws_decoder_close_code(&d), err.message);
 *
 * Thread-safety: reentrant; a decoder belongs to one thread at a time. No
 * function allocates; the library has no random source, so a client passes
 * each frame's masking key itself.
 */
#ifndef APS_WS_H
#define APS_WS_H

#include "aps/common.h"
#include "aps/utf8.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Frame opcodes (RFC 6455 5.2). */
typedef enum aps_ws_opcode {
    APS_WS_CONTINUATION = 0x0,
    APS_WS_TEXT = 0x1,
    APS_WS_BINARY = 0x2,
    APS_WS_CLOSE = 0x8,
    APS_WS_PING = 0x9,
    APS_WS_PONG = 0xA
} aps_ws_opcode;

/* Which end of the connection we are: it decides who masks (RFC 6455 5.1). */
typedef enum aps_ws_role {
    APS_WS_SERVER, /* receives masked frames, sends unmasked ones */
    APS_WS_CLIENT  /* receives unmasked frames, sends masked ones */
} aps_ws_role;

/* Close codes (RFC 6455 7.4.1 and the IANA registry) used by this module. */
#define APS_WS_CLOSE_NORMAL 1000
#define APS_WS_CLOSE_PROTOCOL_ERROR 1002
#define APS_WS_CLOSE_NO_STATUS 1005   /* never sent: "the close had no code" */
#define APS_WS_CLOSE_INVALID_DATA 1007
#define APS_WS_CLOSE_TOO_BIG 1009
#define APS_WS_CLOSE_INTERNAL_ERROR 1011

#define APS_WS_HEADER_MAX 14  /* longest frame header: 2 + 8 length + 4 mask */
#define APS_WS_CONTROL_MAX 125 /* longest control frame payload */
#define APS_WS_ACCEPT_LEN 28  /* length of a Sec-WebSocket-Accept value */

/*
 * True when `code` may appear in a close frame: 1000-1003, 1007-1014 and
 * 3000-4999. 0-999, 1004 (reserved), 1005, 1006 and 1015 (reserved for
 * reporting, never sent) and the unassigned 1016-2999 and 5000+ are not.
 */
int aps_ws_close_code_valid(unsigned code);

/*
 * The close code an endpoint sends after an error of this status:
 * APS_E_UTF8 -> 1007, APS_E_LIMIT -> 1009, APS_E_SYNTAX -> 1002, APS_OK -> 0,
 * anything else (a callback's own status, say) -> 1011.
 */
unsigned aps_ws_close_code_for(aps_status status);

/* ------------------------------------------------------------------------ */
/* Decoder                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * One received message: a data message reassembled from its fragments, or a
 * control frame. Slices are valid only during the callback.
 */
typedef struct aps_ws_message {
    aps_ws_opcode opcode;   /* TEXT, BINARY, CLOSE, PING or PONG */
    const uint8_t *payload; /* unmasked payload (NULL possible when len is 0) */
    size_t len;
    unsigned close_code;    /* CLOSE: its code, or 1005 when the payload was empty */
    const char *reason;     /* CLOSE: its UTF-8 reason (checked), may be empty */
    size_t reason_len;
    uint64_t offset;        /* stream offset of the (first) frame's header */
    size_t frames;          /* how many frames the message came in */
} aps_ws_message;

/*
 * Receives each message. Returns APS_OK to go on; any other status stops the
 * decoder, and push returns it.
 */
typedef aps_status (*aps_ws_message_fn)(void *user, const aps_ws_message *m);

/* Decoder state. Treat the members as private. */
typedef struct aps_ws_decoder {
    aps_ws_role role;
    uint8_t *msg;              /* the caller's storage for data messages */
    size_t msg_cap, msg_len;
    uint8_t ctl[APS_WS_CONTROL_MAX]; /* a control frame's payload */
    uint8_t hdr[APS_WS_HEADER_MAX];
    size_t hdr_len, hdr_need;  /* header bytes held and needed */
    int in_payload;            /* header done, payload bytes follow */
    int fin, opcode, masked;   /* of the current frame */
    uint8_t mask[4];
    uint64_t payload_len, payload_done;
    int msg_opcode;            /* TEXT or BINARY while a message is open, else 0 */
    size_t msg_frames;
    uint64_t msg_offset, frame_offset;
    aps_utf8_state utf8;       /* of the open text message */
    int closed;                /* a close frame was received */
    aps_status failed;         /* first failure; APS_OK while healthy */
    uint64_t offset;           /* stream offset of the next byte */
    aps_ws_message_fn on_message;
    void *user;
} aps_ws_decoder;

/*
 * Prepares a decoder for a new connection.
 * role: APS_WS_SERVER requires masked frames, APS_WS_CLIENT rejects them.
 * storage, cap: where fragmented data messages are reassembled; a data
 *   message longer than `cap` bytes fails with APS_E_LIMIT (close code 1009).
 *   Borrowed while the decoder is used; may be NULL when cap is 0. Control
 *   frames use room inside the decoder.
 * on_message: receives messages; NULL discards them (frames are still
 *   checked). user: passed to it.
 */
void aps_ws_decoder_init(aps_ws_decoder *d, aps_ws_role role, void *storage,
                         size_t cap, aps_ws_message_fn on_message, void *user);

/*
 * Feeds the next `len` bytes of the connection (`bytes` may be NULL when len
 * is 0) and calls on_message for each message completed. A partial frame or
 * message is kept for the next push; any chunking gives the same callbacks.
 * Bytes after a close frame are a protocol error (the peer may send nothing
 * after it).
 * Returns APS_OK; APS_E_SYNTAX for a protocol error (close code 1002),
 * APS_E_UTF8 for invalid UTF-8 in a text message or close reason (1007),
 * APS_E_LIMIT for a message over the maximum (1009), or a callback's status;
 * the decoder is then failed and every later push returns the same status.
 * `err` gets the stream offset and a message naming the rule broken.
 */
APS_NODISCARD aps_status aps_ws_decoder_push(aps_ws_decoder *d, const void *bytes,
                                             size_t len, aps_error *err);

/*
 * Ends the connection. Returns APS_OK when it ended between messages (or
 * after a close frame), APS_E_SYNTAX when it ended inside a frame or a
 * fragmented message, or the status of an earlier failure.
 */
APS_NODISCARD aps_status aps_ws_decoder_finish(aps_ws_decoder *d, aps_error *err);

/* The close code to send after a failure (see aps_ws_close_code_for), 0 if none. */
unsigned aps_ws_decoder_close_code(const aps_ws_decoder *d);

/* ------------------------------------------------------------------------ */
/* Encoder                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Writes a frame header into out[] and its length into *out_len: FIN when
 * `fin` is non-zero, the opcode, the shortest length encoding, and the mask
 * key when `mask_key` is not NULL (a client must mask every frame; a server
 * must not, so it passes NULL). The encoder keeps no state: sending the
 * fragments of a message in order (first TEXT or BINARY with fin 0, then
 * CONTINUATION frames, the last with fin 1) is the caller's job.
 * Returns APS_OK; APS_E_ARGUMENT for an unknown opcode, or a control frame
 * that is fragmented or longer than 125 bytes.
 */
APS_NODISCARD aps_status aps_ws_encode_header(uint8_t out[APS_WS_HEADER_MAX],
                                              size_t *out_len, int fin,
                                              aps_ws_opcode opcode,
                                              uint64_t payload_len,
                                              const uint8_t *mask_key,
                                              aps_error *err);

/*
 * XORs `len` bytes in place with the mask `key`, as if they started `pos`
 * bytes into the payload (so a payload can be masked in pieces). Masking
 * twice restores the bytes.
 */
void aps_ws_mask(uint8_t *bytes, size_t len, const uint8_t key[4], uint64_t pos);

/*
 * Writes a whole frame (header, then the payload, masked when `mask_key` is
 * not NULL) into out[0..cap) and its size into *out_len. `payload` may be
 * NULL when len is 0. Text is written as given: UTF-8 validity is the
 * caller's business. Returns APS_OK; APS_E_ARGUMENT as for
 * aps_ws_encode_header; APS_E_LIMIT when `cap` is too small (out unchanged).
 */
APS_NODISCARD aps_status aps_ws_encode_frame(uint8_t *out, size_t cap, size_t *out_len,
                                             int fin, aps_ws_opcode opcode,
                                             const void *payload, size_t len,
                                             const uint8_t *mask_key, aps_error *err);

/*
 * Writes a close frame: no payload when `code` is 0, else the code in network
 * order followed by `reason` (may be NULL when reason_len is 0).
 * Returns APS_OK; APS_E_ARGUMENT when the code may not be sent (see
 * aps_ws_close_code_valid), the reason is given without a code, is not valid
 * UTF-8, or is longer than 123 bytes; APS_E_LIMIT when `cap` is too small.
 */
APS_NODISCARD aps_status aps_ws_encode_close(uint8_t *out, size_t cap, size_t *out_len,
                                             unsigned code, const char *reason,
                                             size_t reason_len, const uint8_t *mask_key,
                                             aps_error *err);

/* ------------------------------------------------------------------------ */
/* Handshake                                                                */
/* ------------------------------------------------------------------------ */

/*
 * Computes the Sec-WebSocket-Accept value for a client's Sec-WebSocket-Key:
 * base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")), written to out
 * as 28 characters and a NUL. `key` (key_len bytes, surrounding whitespace
 * already trimmed) must be the base64 form of 16 bytes, as RFC 6455 4.2.1
 * requires. Returns APS_OK, or APS_E_ARGUMENT for a malformed key.
 */
APS_NODISCARD aps_status aps_ws_accept_key(const char *key, size_t key_len,
                                           char out[APS_WS_ACCEPT_LEN + 1],
                                           aps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* APS_WS_H */
