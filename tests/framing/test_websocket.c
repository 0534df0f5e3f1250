/*
 * test_websocket.c - RFC 6455 framing: the section 5.7 example frames, every
 * receiver rule of section 5 with the close code it maps to, close frames,
 * the encoder, the handshake value, SHA-1 and base64, chunking invariance.
 */
#include "aps/ws.h"
#include "base64.h"
#include "chunking.h"
#include "sha1.h"

typedef struct ws_ctx {
    tlog *log;
} ws_ctx;

static const char *opname(aps_ws_opcode op)
{
    switch (op) {
    case APS_WS_TEXT: return "text";
    case APS_WS_BINARY: return "binary";
    case APS_WS_CLOSE: return "close";
    case APS_WS_PING: return "ping";
    case APS_WS_PONG: return "pong";
    default: return "?";
    }
}

static aps_status on_message(void *user, const aps_ws_message *m)
{
    ws_ctx *c = user;
    tlog_printf(c->log, "%s@%llu/%zu:", opname(m->opcode), (unsigned long long)m->offset,
                m->frames);
    if (m->len > 64)
        tlog_printf(c->log, "%zu bytes", m->len);
    else
        tlog_escaped(c->log, (const char *)m->payload, m->len);
    if (m->opcode == APS_WS_CLOSE) {
        tlog_printf(c->log, " code=%u reason=", m->close_code);
        tlog_escaped(c->log, m->reason, m->reason_len);
    }
    tlog_add(c->log, "\n", 1);
    return APS_OK;
}

static aps_ws_role g_role = APS_WS_SERVER;
static size_t g_cap = 1 << 17;

/* Logs messages, then "!CODE@offset close=N" for a failure, or "!END" when
 * finish reports the stream cut inside a frame or message. */
static void ws_chunked(const uint8_t *in, size_t len, const size_t *cuts, size_t ncuts,
                       tlog *out)
{
    static uint8_t storage[1 << 17];
    aps_ws_decoder d;
    ws_ctx c;
    aps_error err = APS_ERROR_INIT;
    size_t i, at = 0;
    aps_status st = APS_OK;
    c.log = out;
    aps_ws_decoder_init(&d, g_role, storage, g_cap, on_message, &c);
    for (i = 0; i <= ncuts && st == APS_OK; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        st = aps_ws_decoder_push(&d, in + at, end - at, &err);
        at = end;
    }
    if (st == APS_OK && aps_ws_decoder_finish(&d, &err) != APS_OK)
        tlog_printf(out, "!END@%zu\n", err.offset);
    else if (st != APS_OK)
        tlog_printf(out, "!%s@%zu close=%u\n", aps_status_str(st), err.offset,
                    aps_ws_decoder_close_code(&d));
}

#define EXPECT(in, want) expect_ws(__LINE__, (const uint8_t *)(in), sizeof(in) - 1, want)

static void expect_ws(int line, const uint8_t *in, size_t len, const char *want)
{
    tlog got = check_split_invariance("ws", in, len, ws_chunked, 4096);
    const char *g = got.s ? got.s : "";
    ++test_checks_run;
    if (strcmp(g, want) != 0) {
        ++test_checks_failed;
        fprintf(stderr, "%s:%d: WebSocket log differs\n  want: %s\n  got:  %s\n", __FILE__,
                line, want, g);
    }
    tlog_free(&got);
}

/* RFC 6455 section 5.7. */
static void test_rfc_examples(void)
{
    static uint8_t big[10 + 65536];
    static const uint8_t key[4] = { 0x37, 0xfa, 0x21, 0x3d };
    uint8_t out[64];
    size_t n, i;
    tlog got;

    g_role = APS_WS_CLIENT;
    EXPECT("\x81\x05\x48\x65\x6c\x6c\x6f", "text@0/1:Hello\n");
    EXPECT("\x01\x03\x48\x65\x6c\x80\x02\x6c\x6f", "text@0/2:Hello\n");
    EXPECT("\x89\x05\x48\x65\x6c\x6c\x6f", "ping@0/1:Hello\n");
    g_role = APS_WS_SERVER;
    EXPECT("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", "text@0/1:Hello\n");
    EXPECT("\x8a\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", "pong@0/1:Hello\n");

    /* the encoder writes the same bytes */
    CHECK(aps_ws_encode_frame(out, sizeof out, &n, 1, APS_WS_TEXT, "Hello", 5, NULL, NULL) ==
          APS_OK);
    CHECK(n == 7 && memcmp(out, "\x81\x05\x48\x65\x6c\x6c\x6f", 7) == 0);
    CHECK(aps_ws_encode_frame(out, sizeof out, &n, 1, APS_WS_TEXT, "Hello", 5, key, NULL) ==
          APS_OK);
    CHECK(n == 11 && memcmp(out, "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11) == 0);
    CHECK(aps_ws_encode_frame(out, sizeof out, &n, 0, APS_WS_TEXT, "Hel", 3, NULL, NULL) ==
          APS_OK);
    CHECK(n == 5 && memcmp(out, "\x01\x03\x48\x65\x6c", 5) == 0);
    CHECK(aps_ws_encode_frame(out, sizeof out, &n, 1, APS_WS_CONTINUATION, "lo", 2, NULL,
                              NULL) == APS_OK);
    CHECK(n == 4 && memcmp(out, "\x80\x02\x6c\x6f", 4) == 0);
    CHECK(aps_ws_encode_frame(out, sizeof out, &n, 1, APS_WS_PING, "Hello", 5, NULL, NULL) ==
          APS_OK);
    CHECK(n == 7 && memcmp(out, "\x89\x05\x48\x65\x6c\x6c\x6f", 7) == 0);
    CHECK(aps_ws_encode_frame(out, sizeof out, &n, 1, APS_WS_PONG, "Hello", 5, key, NULL) ==
          APS_OK);
    CHECK(n == 11 && memcmp(out, "\x8a\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11) == 0);

    /* 256 bytes: 0x82 0x7E 0x0100; 64 KiB: 0x82 0x7F 0x0000000000010000 */
    CHECK(aps_ws_encode_header(out, &n, 1, APS_WS_BINARY, 256, NULL, NULL) == APS_OK);
    CHECK(n == 4 && memcmp(out, "\x82\x7E\x01\x00", 4) == 0);
    CHECK(aps_ws_encode_header(out, &n, 1, APS_WS_BINARY, 65536, NULL, NULL) == APS_OK);
    CHECK(n == 10 && memcmp(out, "\x82\x7F\x00\x00\x00\x00\x00\x01\x00\x00", 10) == 0);
    g_role = APS_WS_CLIENT;
    memcpy(big, "\x82\x7E\x01\x00", 4);
    for (i = 0; i < 256; i++)
        big[4 + i] = (uint8_t)i;
    got = check_split_invariance("ws-256", big, 4 + 256, ws_chunked, 4096);
    CHECK_STR(got.s, "binary@0/1:256 bytes\n");
    tlog_free(&got);
    memcpy(big, "\x82\x7F\x00\x00\x00\x00\x00\x01\x00\x00", 10);
    got = check_split_invariance("ws-64k", big, sizeof big, ws_chunked, 0);
    CHECK_STR(got.s, "binary@0/1:65536 bytes\n");
    tlog_free(&got);
    g_role = APS_WS_SERVER;
}

static void test_frame_rules(void)
{
    g_role = APS_WS_CLIENT;
    /* reserved bits, unknown opcodes */
    EXPECT("\xC1\x00", "!syntax error@0 close=1002\n");
    EXPECT("\xA1\x00", "!syntax error@0 close=1002\n");
    EXPECT("\x91\x00", "!syntax error@0 close=1002\n");
    EXPECT("\x83\x00", "!syntax error@0 close=1002\n");
    EXPECT("\x87\x00", "!syntax error@0 close=1002\n");
    EXPECT("\x8B\x00", "!syntax error@0 close=1002\n");
    EXPECT("\x8F\x00", "!syntax error@0 close=1002\n");
    /* control frames: never fragmented, at most 125 bytes */
    EXPECT("\x09\x00", "!syntax error@0 close=1002\n");
    EXPECT("\x89\x7E\x00\x7E", "!syntax error@0 close=1002\n");
    /* minimal length encodings; the 64-bit MSB clear */
    EXPECT("\x82\x7E\x00\x7D", "!syntax error@0 close=1002\n");
    EXPECT("\x82\x7F\x00\x00\x00\x00\x00\x00\xFF\xFF", "!syntax error@0 close=1002\n");
    EXPECT("\x82\x7F\x80\x00\x00\x00\x00\x01\x00\x00", "!syntax error@0 close=1002\n");
    /* fragment order */
    EXPECT("\x80\x00", "!syntax error@0 close=1002\n");
    EXPECT("\x01\x01" "a" "\x81\x01" "b", "!syntax error@3 close=1002\n");
    EXPECT("\x01\x01" "a" "\x02\x01" "b", "!syntax error@3 close=1002\n");
    /* control frames between fragments are fine */
    EXPECT("\x01\x01" "a" "\x89\x01" "p" "\x00\x01" "b" "\x8A\x00" "\x80\x01" "c",
           "ping@3/1:p\npong@9/1:\ntext@0/3:abc\n");
    /* empty frames and messages */
    EXPECT("\x81\x00\x82\x00\x01\x00\x80\x00", "text@0/1:\nbinary@2/1:\ntext@4/2:\n");
    /* the stream cut inside a frame, or inside a fragmented message */
    EXPECT("\x81\x05He", "!END@4\n");
    EXPECT("\x81", "!END@1\n");
    EXPECT("\x01\x01" "a", "!END@3\n");
    /* masking by role */
    EXPECT("\x81\x81\x00\x00\x00\x00" "a", "!syntax error@0 close=1002\n");
    g_role = APS_WS_SERVER;
    EXPECT("\x81\x01" "a", "!syntax error@0 close=1002\n");
    EXPECT("\x81\x81\x00\x00\x00\x00" "a", "text@0/1:a\n");
}

static void test_sizes_and_utf8(void)
{
    g_role = APS_WS_CLIENT;
    g_cap = 4;
    EXPECT("\x81\x04" "abcd", "text@0/1:abcd\n");
    EXPECT("\x81\x05" "abcde", "!size limit exceeded@0 close=1009\n");
    EXPECT("\x01\x02" "ab" "\x80\x03" "cde", "!size limit exceeded@4 close=1009\n");
    /* control frames do not use the message storage */
    EXPECT("\x89\x05" "hello", "ping@0/1:hello\n");
    g_cap = 1 << 17;
    /* UTF-8 is checked as it arrives, across fragments */
    EXPECT("\x01\x01\xC3\x80\x01\xA9", "text@0/2:\xC3\xA9\n");
    EXPECT("\x81\x03" "a\xC3(", "!invalid UTF-8@4 close=1007\n");
    EXPECT("\x01\x01" "a" "\x00\x01\xFF" "\x80\x01" "b", "!invalid UTF-8@5 close=1007\n");
    EXPECT("\x81\x02" "a\xC3", "!invalid UTF-8@4 close=1007\n");
    EXPECT("\x81\x03\xED\xA0\x80", "!invalid UTF-8@3 close=1007\n");
    /* binary is not checked */
    EXPECT("\x82\x02\xFF\xFE", "binary@0/1:\xFF\xFE\n");
}

static void test_close(void)
{
    char frame[8];
    unsigned code;
    g_role = APS_WS_CLIENT;
    EXPECT("\x88\x00", "close@0/1: code=1005 reason=\n");
    EXPECT("\x88\x02\x03\xE8", "close@0/1:\\x03\xE8 code=1000 reason=\n");
    EXPECT("\x88\x05\x03\xE9" "bye", "close@0/1:\\x03\xE9" "bye code=1001 reason=bye\n");
    EXPECT("\x88\x01\x03", "!syntax error@0 close=1002\n");
    EXPECT("\x88\x04\x03\xE8\xC3(", "!invalid UTF-8@5 close=1007\n");
    /* nothing may follow a close frame */
    EXPECT("\x88\x00\x81\x00", "close@0/1: code=1005 reason=\n!syntax error@2 close=1002\n");
    /* codes: valid and invalid to receive */
    for (code = 0; code < 5100; code++) {
        int valid = (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
                    (code >= 3000 && code <= 4999);
        CHECK_INT(aps_ws_close_code_valid(code), valid);
    }
    CHECK(!aps_ws_close_code_valid(1004) && !aps_ws_close_code_valid(1005) &&
          !aps_ws_close_code_valid(1006) && !aps_ws_close_code_valid(1015) &&
          !aps_ws_close_code_valid(999) && !aps_ws_close_code_valid(0) &&
          !aps_ws_close_code_valid(65535));
    CHECK(aps_ws_close_code_valid(1000) && aps_ws_close_code_valid(1011) &&
          aps_ws_close_code_valid(3000) && aps_ws_close_code_valid(4999));
    memcpy(frame, "\x88\x02", 2);
    {
        static const unsigned bad[] = { 0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000 };
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            tlog got;
            frame[2] = (char)(bad[i] >> 8);
            frame[3] = (char)bad[i];
            got = check_split_invariance("ws-close", (const uint8_t *)frame, 4, ws_chunked, 8);
            CHECK_STR(got.s, "!syntax error@2 close=1002\n");
            tlog_free(&got);
        }
    }
    CHECK_INT(aps_ws_close_code_for(APS_OK), 0);
    CHECK_INT(aps_ws_close_code_for(APS_E_NOMEM), 1011);
}

static void test_encoder(void)
{
    static const uint8_t key[4] = { 1, 2, 3, 4 };
    uint8_t out[300], payload[200], copy[200];
    size_t n, i;
    aps_error err = APS_ERROR_INIT;
    CHECK(aps_ws_encode_header(out, &n, 1, (aps_ws_opcode)3, 0, NULL, &err) == APS_E_ARGUMENT);
    CHECK(aps_ws_encode_header(out, &n, 0, APS_WS_PING, 0, NULL, NULL) == APS_E_ARGUMENT);
    CHECK(aps_ws_encode_header(out, &n, 1, APS_WS_CLOSE, 126, NULL, NULL) == APS_E_ARGUMENT);
    CHECK(aps_ws_encode_header(out, &n, 1, APS_WS_BINARY, 1ull << 63, NULL, NULL) ==
          APS_E_ARGUMENT);
    CHECK(aps_ws_encode_header(out, &n, 1, APS_WS_BINARY, 125, NULL, NULL) == APS_OK &&
          n == 2 && out[1] == 125);
    CHECK(aps_ws_encode_header(out, &n, 1, APS_WS_BINARY, 65535, key, NULL) == APS_OK &&
          n == 8 && out[1] == (0x80 | 126) && out[2] == 0xFF && out[3] == 0xFF);
    CHECK(aps_ws_encode_frame(out, 6, &n, 1, APS_WS_TEXT, "Hello", 5, NULL, NULL) ==
          APS_E_LIMIT);
    CHECK(aps_ws_encode_frame(out, 7, &n, 1, APS_WS_TEXT, "Hello", 5, NULL, NULL) == APS_OK);
    CHECK(aps_ws_encode_frame(out, 1, &n, 1, APS_WS_TEXT, NULL, 0, NULL, NULL) == APS_E_LIMIT);

    /* masking in pieces equals masking whole; twice restores */
    for (i = 0; i < sizeof payload; i++)
        payload[i] = copy[i] = (uint8_t)(i * 7);
    aps_ws_mask(payload, sizeof payload, key, 0);
    aps_ws_mask(copy, 13, key, 0);
    aps_ws_mask(copy + 13, 50, key, 13);
    aps_ws_mask(copy + 63, sizeof copy - 63, key, 63);
    CHECK(memcmp(payload, copy, sizeof copy) == 0);
    CHECK(payload[5] == (uint8_t)(35 ^ 2));
    aps_ws_mask(payload, sizeof payload, key, 0);
    CHECK(payload[199] == (uint8_t)(199 * 7));

    /* close frames */
    CHECK(aps_ws_encode_close(out, sizeof out, &n, 1000, "bye", 3, NULL, NULL) == APS_OK);
    CHECK(n == 7 && memcmp(out, "\x88\x05\x03\xE8" "bye", 7) == 0);
    CHECK(aps_ws_encode_close(out, sizeof out, &n, 0, NULL, 0, NULL, NULL) == APS_OK);
    CHECK(n == 2 && memcmp(out, "\x88\x00", 2) == 0);
    CHECK(aps_ws_encode_close(out, sizeof out, &n, 1005, NULL, 0, NULL, NULL) ==
          APS_E_ARGUMENT);
    CHECK(aps_ws_encode_close(out, sizeof out, &n, 0, "x", 1, NULL, NULL) == APS_E_ARGUMENT);
    CHECK(aps_ws_encode_close(out, sizeof out, &n, 1000, "\xC3(", 2, NULL, NULL) ==
          APS_E_ARGUMENT);
    memset(payload, 'r', sizeof payload);
    CHECK(aps_ws_encode_close(out, sizeof out, &n, 1000, (char *)payload, 123, NULL, NULL) ==
          APS_OK && n == 127);
    CHECK(aps_ws_encode_close(out, sizeof out, &n, 1000, (char *)payload, 124, NULL, NULL) ==
          APS_E_ARGUMENT);
}

/* A client's encoded messages decode on the server side in every chunking. */
static void test_round_trip(void)
{
    static uint8_t stream[1 << 16];
    static const uint8_t key[4] = { 0xA1, 0xB2, 0xC3, 0xD4 };
    uint8_t payload[400];
    size_t len = 0, n, i;
    uint64_t seed = 5;
    tlog want = { 0 }, got;
    int round;
    for (round = 0; round < 40; round++) {
        size_t plen = (size_t)(test_rand(&seed) % sizeof payload), frames, f, at = 0;
        size_t start = len;
        for (i = 0; i < plen; i++)
            payload[i] = (uint8_t)('a' + test_rand(&seed) % 26);
        frames = 1 + (size_t)(test_rand(&seed) % 3);
        for (f = 0; f < frames; f++) {
            size_t piece = f + 1 == frames ? plen - at : (plen - at) / 2;
            CHECK(aps_ws_encode_frame(stream + len, sizeof stream - len, &n, f + 1 == frames,
                                      f == 0 ? APS_WS_TEXT : APS_WS_CONTINUATION,
                                      payload + at, piece, key, NULL) == APS_OK);
            len += n;
            at += piece;
            if (f == 0 && frames > 1) {
                /* a ping between fragments is delivered before the message */
                CHECK(aps_ws_encode_frame(stream + len, sizeof stream - len, &n, 1,
                                          APS_WS_PING, "p", 1, key, NULL) == APS_OK);
                tlog_printf(&want, "ping@%zu/1:p\n", len);
                len += n;
            }
        }
        tlog_printf(&want, "text@%zu/%zu:", start, frames);
        if (plen > 64)
            tlog_printf(&want, "%zu bytes", plen);
        else
            tlog_escaped(&want, (const char *)payload, plen);
        tlog_add(&want, "\n", 1);
    }
    tlog_printf(&want, "close@%zu/1:\\x03\xE8" "done code=1000 reason=done\n", len);
    CHECK(aps_ws_encode_close(stream + len, sizeof stream - len, &n, 1000, "done", 4, key,
                              NULL) == APS_OK);
    len += n;
    g_role = APS_WS_SERVER;
    got = check_split_invariance("ws-roundtrip", stream, len, ws_chunked, 2000);
    CHECK_STR(got.s, want.s);
    tlog_free(&got);
    tlog_free(&want);
}

static void test_handshake(void)
{
    char out[APS_WS_ACCEPT_LEN + 1];
    aps_error err = APS_ERROR_INIT;
    /* RFC 6455 sections 1.2 and 1.3 (SHA-1 0xb37a4f2c...c4ea) */
    CHECK(aps_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", 24, out, &err) == APS_OK);
    CHECK_STR(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    CHECK(aps_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ=", 23, out, NULL) == APS_E_ARGUMENT);
    CHECK(aps_ws_accept_key("dGhlIHNhbXBsZSBub25jZR==", 24, out, NULL) == APS_E_ARGUMENT);
    CHECK(aps_ws_accept_key("dGhlIHNhbXBsZSBub25j!Q==", 24, out, NULL) == APS_E_ARGUMENT);
    CHECK(aps_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", 24, out, NULL) == APS_OK);
}

static void hex(const uint8_t *d, size_t n, char *out)
{
    size_t i;
    for (i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_sha1_base64(void)
{
    static const struct { const char *in, *out; } b64[] = {
        { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
        { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
    };
    uint8_t digest[APS_SHA1_DIGEST_LEN], dec[8];
    char text[64];
    aps_sha1 h;
    size_t i;
    /* FIPS 180 examples */
    aps_sha1_init(&h);
    aps_sha1_update(&h, "abc", 3);
    aps_sha1_final(&h, digest);
    hex(digest, sizeof digest, text);
    CHECK_STR(text, "a9993e364706816aba3e25717850c26c9cd0d89d");
    aps_sha1_init(&h);
    aps_sha1_final(&h, digest);
    hex(digest, sizeof digest, text);
    CHECK_STR(text, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    aps_sha1_init(&h);
    aps_sha1_update(&h, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
    aps_sha1_final(&h, digest);
    hex(digest, sizeof digest, text);
    CHECK_STR(text, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    aps_sha1_init(&h);
    for (i = 0; i < 1000000; i += 1000) {
        char a[1000];
        memset(a, 'a', sizeof a);
        aps_sha1_update(&h, a, sizeof a);
    }
    aps_sha1_final(&h, digest);
    hex(digest, sizeof digest, text);
    CHECK_STR(text, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    /* RFC 4648 section 10 */
    for (i = 0; i < sizeof b64 / sizeof b64[0]; i++) {
        size_t n = strlen(b64[i].in);
        aps_base64_encode((const uint8_t *)b64[i].in, n, text);
        text[APS_BASE64_ENCODED_LEN(n)] = '\0';
        CHECK_STR(text, b64[i].out);
        CHECK_INT(aps_base64_decode(b64[i].out, strlen(b64[i].out), dec, sizeof dec), n);
        CHECK(memcmp(dec, b64[i].in, n) == 0);
    }
    CHECK_INT(aps_base64_decode("Zh==", 4, dec, sizeof dec), SIZE_MAX);
    CHECK_INT(aps_base64_decode("Zm9=", 4, dec, sizeof dec), SIZE_MAX);
    CHECK_INT(aps_base64_decode("Zg=", 3, dec, sizeof dec), SIZE_MAX);
    CHECK_INT(aps_base64_decode("Z===", 4, dec, sizeof dec), SIZE_MAX);
    CHECK_INT(aps_base64_decode("Zg==Zg==", 8, dec, sizeof dec), SIZE_MAX);
    CHECK_INT(aps_base64_decode("Zm9vYmFy", 8, dec, 5), SIZE_MAX);
}

static void test_failed_is_sticky(void)
{
    static uint8_t storage[16];
    aps_ws_decoder d;
    aps_error err = APS_ERROR_INIT;
    aps_ws_decoder_init(&d, APS_WS_CLIENT, storage, sizeof storage, NULL, NULL);
    CHECK_INT(aps_ws_decoder_close_code(&d), 0);
    CHECK(aps_ws_decoder_push(&d, "\x81\x01" "a", 3, NULL) == APS_OK);
    CHECK(aps_ws_decoder_push(&d, "\xC1\x00", 2, &err) == APS_E_SYNTAX);
    CHECK(strstr(err.message, "reserved bits") != NULL);
    CHECK_INT(err.offset, 3);
    CHECK(aps_ws_decoder_push(&d, "\x81\x00", 2, NULL) == APS_E_SYNTAX);
    CHECK(aps_ws_decoder_finish(&d, NULL) == APS_E_SYNTAX);
    CHECK_INT(aps_ws_decoder_close_code(&d), 1002);
    aps_error_clear(&err);
    aps_ws_decoder_init(&d, APS_WS_CLIENT, storage, 4, NULL, NULL);
    CHECK(aps_ws_decoder_push(&d, "\x82\x7E\x01\x00", 4, &err) == APS_E_LIMIT);
    CHECK(strstr(err.message, "256 bytes") != NULL);
    CHECK_INT(aps_ws_decoder_close_code(&d), 1009);
}

int main(void)
{
    test_rfc_examples();
    test_frame_rules();
    test_sizes_and_utf8();
    test_close();
    test_encoder();
    test_round_trip();
    test_handshake();
    test_sha1_base64();
    test_failed_is_sticky();
    return test_report();
}
