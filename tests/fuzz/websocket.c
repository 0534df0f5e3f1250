/*
 * websocket.c - fuzz target for the WebSocket decoder and encoder. The first
 * byte picks the role and the maximum message size; the rest is the byte
 * stream. Checks that decoding it whole and in two pieces (cut at a point the
 * input chooses) gives the same messages and the same failure, and that each
 * message, encoded again as one frame, decodes back to itself.
 */
#include "aps/ws.h"
#include "../test_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct summary {
    uint64_t hash; /* FNV-1a over everything reported */
    size_t messages;
    aps_status status;
    size_t offset;
    aps_ws_role role;
} summary;

typedef struct echo {
    const aps_ws_message *want;
    int seen, same;
} echo;

static aps_status echo_message(void *user, const aps_ws_message *m)
{
    echo *e = user;
    e->seen++;
    e->same = m->opcode == e->want->opcode && m->len == e->want->len &&
              (m->len == 0 || memcmp(m->payload, e->want->payload, m->len) == 0) &&
              m->close_code == e->want->close_code;
    return APS_OK;
}

/* Sends the message back through the encoder, as the peer's role would. */
static void round_trip(const aps_ws_message *m, aps_ws_role role)
{
    static uint8_t out[APS_WS_HEADER_MAX + 1024], storage[1024];
    static const uint8_t key[4] = { 0x11, 0x22, 0x33, 0x44 };
    aps_ws_decoder d;
    echo e = { 0, 0, 0 };
    size_t n;
    aps_status st;
    e.want = m;
    st = aps_ws_encode_frame(out, sizeof out, &n, 1, m->opcode, m->payload, m->len,
                             role == APS_WS_SERVER ? key : NULL, NULL);
    if (st != APS_OK)
        abort();
    aps_ws_decoder_init(&d, role, storage, sizeof storage, echo_message, &e);
    if (aps_ws_decoder_push(&d, out, n, NULL) != APS_OK ||
        aps_ws_decoder_finish(&d, NULL) != APS_OK || e.seen != 1 || !e.same)
        abort();
}

static aps_status on_message(void *user, const aps_ws_message *m)
{
    summary *s = user;
    uint64_t nums[4];
    s->messages++;
    nums[0] = (uint64_t)m->opcode;
    nums[1] = m->offset;
    nums[2] = m->frames;
    nums[3] = m->close_code;
    s->hash = test_hash_mix(s->hash, nums, sizeof nums);
    s->hash = test_hash_mix(s->hash, m->payload, m->len);
    if (m->opcode != APS_WS_CLOSE && m->reason_len != 0)
        abort();
    round_trip(m, s->role);
    return APS_OK;
}

static summary decode(const uint8_t *in, size_t len, size_t cut, aps_ws_role role,
                      size_t cap)
{
    static uint8_t storage[1024];
    aps_ws_decoder d;
    aps_error err = APS_ERROR_INIT;
    summary s = { TEST_HASH_INIT, 0, APS_OK, 0, APS_WS_SERVER };
    s.role = role;
    aps_ws_decoder_init(&d, role, storage, cap, on_message, &s);
    s.status = aps_ws_decoder_push(&d, in, cut, &err);
    if (s.status == APS_OK)
        s.status = aps_ws_decoder_push(&d, in + cut, len - cut, &err);
    if (s.status == APS_OK)
        s.status = aps_ws_decoder_finish(&d, &err);
    s.offset = err.offset;
    if (s.status != APS_OK && aps_ws_decoder_close_code(&d) == 0)
        abort();
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aps_ws_role role;
    size_t cap, cut;
    summary whole, split;
    if (size < 1)
        return 0;
    role = (data[0] & 1) ? APS_WS_CLIENT : APS_WS_SERVER;
    cap = (data[0] >> 1) == 0 ? 1024 : (size_t)(data[0] >> 1) * 3;
    data++;
    size--;
    cut = size > 0 ? (size_t)(data[size / 2] * 31u + data[0]) % (size + 1) : 0;
    whole = decode(data, size, 0, role, cap);
    split = decode(data, size, cut, role, cap);
    if (whole.hash != split.hash || whole.messages != split.messages ||
        whole.status != split.status || whole.offset != split.offset)
        abort();
    return 0;
}
