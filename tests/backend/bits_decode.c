/*
 * bits_decode.c - `uint .bits` through the generated code of golden/bits.cddl:
 * values whose set bits are all listed decode, validate and encode; a value
 * with any other bit set is a range error at its member, from the decoder
 * (both the generated straight-line path and the exact one), the validator
 * and the encoder.
 */
#include <string.h>

#include "bits.h"
#include "test.h"

/* Decodes `json` as Permissions; returns the status, the error in *err. */
static aps_status decode(const char *json, bits_permissions_t *out, aps_error *err)
{
    aps_arena arena;
    aps_status st;
    aps_arena_init(&arena, NULL);
    memset(out, 0, sizeof *out);
    st = bits_permissions_decode(json, strlen(json), &arena, out, err);
    aps_arena_deinit(&arena);
    return st;
}

static void test_valid(void)
{
    static const char *const valid[] = {
        "{\"mode\": 0}",
        "{\"mode\": 7}",                                   /* read, write, execute */
        "{\"mode\": 5, \"flags\": 57}",                    /* bits 0, 3, 4, 5 */
        "{\"mode\": 2, \"tcp\": 3840}",                    /* bits 8..11 */
        "{\"mode\": 1, \"small\": 6}",
    };
    size_t i;
    for (i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        bits_permissions_t v;
        aps_error err = APS_ERROR_INIT;
        aps_json_writer w;
        CHECK_INT(decode(valid[i], &v, &err), APS_OK);
        CHECK_INT(bits_permissions_validate(&v, true, &err), APS_OK);
        aps_json_writer_init(&w, NULL);
        CHECK_INT(bits_permissions_encode(&v, &w, &err), APS_OK);
        aps_json_writer_deinit(&w);
    }
}

static void test_invalid(void)
{
    static const struct {
        const char *json, *pointer, *message;
    } invalid[] = {
        { "{\"mode\": 8}", "/mode", "expected an integer in 0..18446744073709551615 with no bit of "
                                    "0xfffffffffffffff8 set; got 8" },
        { "{\"mode\": 0, \"flags\": 2}", "/flags", "with no bit of 0xffffffffffffffc6 set; got 2" },
        { "{\"mode\": 0, \"tcp\": 4096}", "/tcp", "got 4096" },
        { "{\"mode\": 0, \"small\": 9}", "/small", "expected an integer in 0..255 with no bit of" },
        { "{\"mode\": 9223372036854775808}", "/mode", "got 9223372036854775808" },
    };
    size_t i;
    for (i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        bits_permissions_t v;
        aps_error err = APS_ERROR_INIT;
        CHECK_INT(decode(invalid[i].json, &v, &err), APS_E_RANGE);
        CHECK_STR(err.pointer, invalid[i].pointer);
        CHECK(strstr(err.message, invalid[i].message) != NULL);
    }
}

/* A value built in C with a bit Access does not list: the validator and the encoder refuse it. */
static void test_built(void)
{
    bits_permissions_t v;
    aps_error err = APS_ERROR_INIT;
    aps_json_writer w;
    memset(&v, 0, sizeof v);
    v.mode = 3;
    CHECK_INT(bits_permissions_validate(&v, false, &err), APS_OK);
    v.mode = 16;
    CHECK_INT(bits_permissions_validate(&v, false, &err), APS_E_RANGE);
    CHECK_STR(err.pointer, "/mode");
    aps_json_writer_init(&w, NULL);
    CHECK(bits_permissions_encode(&v, &w, &err) != APS_OK);
    aps_json_writer_deinit(&w);
}

int main(void)
{
    test_valid();
    test_invalid();
    test_built();
    return test_report();
}
