/*
 * apr_coexist.c - our runtime linked into one program with Apache APR-util,
 * whose names (apr_*, APR_*, apr_json.h, apr_base64.h) the runtime once
 * used: APR's base64 and SHA-1 must be APR's, and ours must still work.
 * Every header of ours is included beside APR's, so a clash of macro,
 * type or include-guard names fails the build.
 */
#include <apr_base64.h>
#include <apr_sha1.h>

#include "aps/arena.h"
#include "aps/asm.h"
#include "aps/common.h"
#include "aps/fast.h"
#include "aps/filter.h"
#include "aps/json.h"
#include "aps/jsonl.h"
#include "aps/records.h"
#include "aps/regex.h"
#include "aps/replay.h"
#include "aps/scan.h"
#include "aps/schema.h"
#include "aps/sse.h"
#include "aps/types.h"
#include "aps/utf8.h"
#include "aps/ws.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expect_text(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s: got \"%s\", want \"%s\"\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    char coded[64], digest_text[64];
    unsigned char digest[APR_SHA1_DIGESTSIZE];
    apr_sha1_ctx_t sha;
    char accept[APS_WS_ACCEPT_LEN + 1];
    aps_error err = APS_ERROR_INIT;
    size_t i;

    /* APR's base64 (RFC 4648 test vector) writes a NUL-terminated text and returns its size with the NUL. */
    int n = apr_base64_encode(coded, "foobar", 6);
    expect_text("apr_base64_encode", coded, "Zm9vYmFy");
    if (n != 9) {
        fprintf(stderr, "apr_base64_encode returned %d, want 9 (APR counts the NUL)\n", n);
        failures++;
    }
    apr_sha1_init(&sha);
    apr_sha1_update(&sha, "abc", 3);
    apr_sha1_final(digest, &sha);
    for (i = 0; i < sizeof digest; i++)
        snprintf(digest_text + 2 * i, 3, "%02x", digest[i]);
    expect_text("apr_sha1 of abc", digest_text, "a9993e364706816aba3e25717850c26c9cd0d89d");

    /* Ours, which uses a SHA-1 and a base64 of its own: RFC 6455 section 1.3's example. */
    if (aps_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", 24, accept, &err) != APS_OK) {
        fprintf(stderr, "aps_ws_accept_key: %s\n", err.message);
        failures++;
    } else {
        expect_text("aps_ws_accept_key", accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    }
    if (failures == 0)
        printf("APR-util and the aps runtime coexist\n");
    return failures != 0;
}
