/*
 * test_cbor.c - the CBOR reader, writer and diagnostic notation
 * (aps/cbor.h): every example of RFC 8949 Appendix A decodes to the value
 * the RFC states (its diagnostic notation) and re-encodes, through the pull
 * reader and the writer, to the same bytes; malformed, invalid and
 * non-deterministic bytes are refused with their offset and path; the
 * writer's preferred and deterministic encodings.
 */
#include "aps/cbor.h"

#include "../test.h"
#include "cbor_copy.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Decodes hex text into out (at most cap bytes); returns the length. */
static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (hex[0] != '\0' && hex[1] != '\0' && n < cap) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

/* ---- RFC 8949 Appendix A -------------------------------------------------------- */

typedef struct example {
    const char *hex;
    const char *diag;      /* the RFC's Diagnostic column */
    const char *ours;      /* our notation where it spells the same value otherwise, else NULL */
    const char *reencoded; /* the preferred encoding where the RFC's bytes are not, else NULL */
} example;

static const example appendix_a[] = {
    { "00", "0", NULL, NULL },
    { "01", "1", NULL, NULL },
    { "0a", "10", NULL, NULL },
    { "17", "23", NULL, NULL },
    { "1818", "24", NULL, NULL },
    { "1819", "25", NULL, NULL },
    { "1864", "100", NULL, NULL },
    { "1903e8", "1000", NULL, NULL },
    { "1a000f4240", "1000000", NULL, NULL },
    { "1b000000e8d4a51000", "1000000000000", NULL, NULL },
    { "1bffffffffffffffff", "18446744073709551615", NULL, NULL },
    /* bignums: the RFC shows the number, a generic decoder the tag it is (RFC 8949 §3.4.3) */
    { "c249010000000000000000", "18446744073709551616", "2(h'010000000000000000')", NULL },
    { "3bffffffffffffffff", "-18446744073709551616", NULL, NULL },
    { "c349010000000000000000", "-18446744073709551617", "3(h'010000000000000000')", NULL },
    { "20", "-1", NULL, NULL },
    { "29", "-10", NULL, NULL },
    { "3863", "-100", NULL, NULL },
    { "3903e7", "-1000", NULL, NULL },
    { "f90000", "0.0", NULL, NULL },
    { "f98000", "-0.0", NULL, NULL },
    { "f93c00", "1.0", NULL, NULL },
    { "fb3ff199999999999a", "1.1", NULL, NULL },
    { "f93e00", "1.5", NULL, NULL },
    { "f97bff", "65504.0", NULL, NULL },
    { "fa47c35000", "100000.0", NULL, NULL },
    { "fa7f7fffff", "3.4028234663852886e+38", NULL, NULL },
    { "fb7e37e43c8800759c", "1.0e+300", NULL, NULL },
    { "f90001", "5.960464477539063e-8", NULL, NULL },
    { "f90400", "0.00006103515625", NULL, NULL },
    { "f9c400", "-4.0", NULL, NULL },
    { "fbc010666666666666", "-4.1", NULL, NULL },
    { "f97c00", "Infinity", NULL, NULL },
    { "f97e00", "NaN", NULL, NULL },
    { "f9fc00", "-Infinity", NULL, NULL },
    /* wider than preferred: the writer takes the shortest form */
    { "fa7f800000", "Infinity", NULL, "f97c00" },
    { "fa7fc00000", "NaN", NULL, "f97e00" },
    { "faff800000", "-Infinity", NULL, "f9fc00" },
    { "fb7ff0000000000000", "Infinity", NULL, "f97c00" },
    { "fb7ff8000000000000", "NaN", NULL, "f97e00" },
    { "fbfff0000000000000", "-Infinity", NULL, "f9fc00" },
    { "f4", "false", NULL, NULL },
    { "f5", "true", NULL, NULL },
    { "f6", "null", NULL, NULL },
    { "f7", "undefined", NULL, NULL },
    { "f0", "simple(16)", NULL, NULL },
    { "f8ff", "simple(255)", NULL, NULL },
    { "c074323031332d30332d32315432303a30343a30305a", "0(\"2013-03-21T20:04:00Z\")", NULL, NULL },
    { "c11a514b67b0", "1(1363896240)", NULL, NULL },
    { "c1fb41d452d9ec200000", "1(1363896240.5)", NULL, NULL },
    { "d74401020304", "23(h'01020304')", NULL, NULL },
    { "d818456449455446", "24(h'6449455446')", NULL, NULL },
    { "d82076687474703a2f2f7777772e6578616d706c652e636f6d", "32(\"http://www.example.com\")", NULL, NULL },
    { "40", "h''", NULL, NULL },
    { "4401020304", "h'01020304'", NULL, NULL },
    { "60", "\"\"", NULL, NULL },
    { "6161", "\"a\"", NULL, NULL },
    { "6449455446", "\"IETF\"", NULL, NULL },
    { "62225c", "\"\\\"\\\\\"", NULL, NULL },
    { "62c3bc", "\"\\u00fc\"", NULL, NULL },
    { "63e6b0b4", "\"\\u6c34\"", NULL, NULL },
    { "64f0908591", "\"\\ud800\\udd51\"", NULL, NULL },
    { "80", "[]", NULL, NULL },
    { "83010203", "[1, 2, 3]", NULL, NULL },
    { "8301820203820405", "[1, [2, 3], [4, 5]]", NULL, NULL },
    { "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
      "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]",
      NULL, NULL },
    { "a0", "{}", NULL, NULL },
    { "a201020304", "{1: 2, 3: 4}", NULL, NULL },
    { "a26161016162820203", "{\"a\": 1, \"b\": [2, 3]}", NULL, NULL },
    { "826161a161626163", "[\"a\", {\"b\": \"c\"}]", NULL, NULL },
    { "a56161614161626142616361436164614461656145",
      "{\"a\": \"A\", \"b\": \"B\", \"c\": \"C\", \"d\": \"D\", \"e\": \"E\"}", NULL, NULL },
    { "5f42010243030405ff", "(_ h'0102', h'030405')", NULL, NULL },
    { "7f657374726561646d696e67ff", "(_ \"strea\", \"ming\")", NULL, NULL },
    { "9fff", "[_ ]", NULL, NULL },
    { "9f018202039f0405ffff", "[_ 1, [2, 3], [_ 4, 5]]", NULL, NULL },
    { "9f01820203820405ff", "[_ 1, [2, 3], [4, 5]]", NULL, NULL },
    { "83018202039f0405ff", "[1, [2, 3], [_ 4, 5]]", NULL, NULL },
    { "83019f0203ff820405", "[1, [_ 2, 3], [4, 5]]", NULL, NULL },
    { "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
      "[_ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]",
      NULL, NULL },
    { "bf61610161629f0203ffff", "{_ \"a\": 1, \"b\": [_ 2, 3]}", NULL, NULL },
    { "826161bf61626163ff", "[\"a\", {_ \"b\": \"c\"}]", NULL, NULL },
    { "bf6346756ef563416d7421ff", "{_ \"Fun\": true, \"Amt\": -2}", NULL, NULL },
};

static int same_bytes(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, const char *what)
{
    size_t i;
    if (na == nb && memcmp(a, b, na) == 0)
        return 1;
    fprintf(stderr, "%s: got ", what);
    for (i = 0; i < na; i++)
        fprintf(stderr, "%02x", a[i]);
    fprintf(stderr, ", want ");
    for (i = 0; i < nb; i++)
        fprintf(stderr, "%02x", b[i]);
    fprintf(stderr, "\n");
    return 0;
}

static void test_appendix_a(void)
{
    size_t i;
    for (i = 0; i < sizeof appendix_a / sizeof appendix_a[0]; i++) {
        const example *ex = &appendix_a[i];
        uint8_t in[128], want[128];
        size_t n = unhex(ex->hex, in, sizeof in), nwant;
        aps_arena arena;
        aps_slice diag;
        aps_error err = APS_ERROR_INIT;
        aps_cbor_reader r;
        aps_cbor_writer w;
        aps_arena_init(&arena, NULL);
        CHECK_INT(aps_cbor_validate(in, n, NULL, &err), APS_OK);
        CHECK_INT(aps_cbor_diag(in, n, false, &arena, &diag, &err), APS_OK);
        if (diag.ptr != NULL && strcmp(diag.ptr, ex->ours != NULL ? ex->ours : ex->diag) != 0)
            fprintf(stderr, "%s: diag %s, want %s\n", ex->hex, diag.ptr, ex->ours ? ex->ours : ex->diag);
        CHECK(diag.ptr != NULL && strcmp(diag.ptr, ex->ours != NULL ? ex->ours : ex->diag) == 0);
        if (ex->ours != NULL && strchr(ex->ours, '(') == NULL) /* a float spelled otherwise: the same double */
            CHECK(strtod(ex->ours, NULL) == strtod(ex->diag, NULL));

        aps_cbor_reader_init(&r, in, n, &arena, NULL);
        aps_cbor_writer_init(&w, NULL);
        CHECK_INT(cbor_copy_item(&r, &w, &err), APS_OK);
        CHECK_INT(aps_cbor_reader_finish(&r, &err), APS_OK);
        CHECK_INT(aps_cbor_writer_finish(&w, &err), APS_OK);
        nwant = ex->reencoded != NULL ? unhex(ex->reencoded, want, sizeof want) : n;
        CHECK(same_bytes(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w),
                         ex->reencoded != NULL ? want : in, nwant, ex->hex));
        if (err.code != APS_OK)
            fprintf(stderr, "%s: %s at %zu %s\n", ex->hex, err.message, err.offset, err.pointer);
        aps_cbor_writer_deinit(&w);
        aps_arena_deinit(&arena);
    }
}

/* ---- refusals ---------------------------------------------------------------------- */

typedef struct refusal {
    const char *hex;
    int deterministic;
    aps_status code;
    size_t offset;
    const char *pointer;
    const char *message; /* a part of it */
} refusal;

static const refusal refusals[] = {
    { "", 0, APS_E_SYNTAX, 0, "", "unexpected end of input" },
    { "18", 0, APS_E_SYNTAX, 0, "", "truncated head" },
    { "1b0000", 0, APS_E_SYNTAX, 0, "", "truncated head" },
    { "1c", 0, APS_E_SYNTAX, 0, "", "reserved additional information 28" },
    { "3f", 0, APS_E_SYNTAX, 0, "", "reserved additional information 31" },
    { "df", 0, APS_E_SYNTAX, 0, "", "reserved" },
    { "ff", 0, APS_E_SYNTAX, 0, "", "a break" },
    { "f818", 0, APS_E_SYNTAX, 0, "", "simple value 24 written in two bytes" },
    { "0000", 0, APS_E_SYNTAX, 1, "", "unexpected bytes after the data item" },
    { "4301", 0, APS_E_SYNTAX, 0, "", "runs past the end" },
    { "7b7fffffffffffffff", 0, APS_E_SYNTAX, 0, "", "runs past the end" },
    { "9b7fffffffffffffff", 0, APS_E_SYNTAX, 0, "", "an array of 9223372036854775807 items runs past the end" },
    { "bb4000000000000000", 0, APS_E_SYNTAX, 0, "", "a map of" },
    { "8301", 0, APS_E_SYNTAX, 0, "", "an array of 3 items runs past the end (1 bytes left)" },
    { "82010101", 0, APS_E_SYNTAX, 3, "", "unexpected bytes after" },
    { "82018302", 0, APS_E_SYNTAX, 2, "/1", "an array of 3 items runs past the end (1 bytes left)" },
    { "a16161", 0, APS_E_SYNTAX, 3, "/a", "unexpected end of input" },
    { "a2616101616102", 0, APS_E_DUPLICATE, 4, "", "given twice" },
    { "a2616101", 0, APS_E_SYNTAX, 0, "", "a map of 2 entries runs past the end" },
    { "a16161820162c328", 0, APS_E_UTF8, 7, "/a/1", "invalid UTF-8" },
    { "62c328", 0, APS_E_UTF8, 2, "", "invalid UTF-8" },
    { "5f4101610201ff", 0, APS_E_SYNTAX, 3, "", "a chunk of an indefinite-length a byte string" },
    { "7f5f", 0, APS_E_SYNTAX, 1, "", "must be a definite" },
    { "9f01", 0, APS_E_SYNTAX, 2, "/0", "unexpected end of input" },
    { "bf6161ff", 0, APS_E_SYNTAX, 3, "", "without its value" },
    { "a1a0a0a0", 0, APS_E_SYNTAX, 3, "", "unexpected bytes after" },
    /* deterministic encoding (RFC 8949 §4.2.1) */
    { "1817", 1, APS_E_SYNTAX, 0, "", "argument 23 written longer" },
    { "190017", 1, APS_E_SYNTAX, 0, "", "written longer" },
    { "5f4101ff", 1, APS_E_SYNTAX, 0, "", "indefinite length" },
    { "fa3fc00000", 1, APS_E_SYNTAX, 0, "", "a float written wider" },
    { "fb3ff8000000000000", 1, APS_E_SYNTAX, 0, "", "a float written wider" },
    { "fa7fc00000", 1, APS_E_SYNTAX, 0, "", "a float written wider" },
    { "a2616201616102", 1, APS_E_SYNTAX, 4, "", "out of bytewise order" },
    { "a2616101616102", 1, APS_E_DUPLICATE, 4, "", "given twice" },
    { "a2626161016162", 1, APS_E_SYNTAX, 5, "", "out of bytewise order" },
    { "a1616182181702", 1, APS_E_SYNTAX, 4, "/a/0", "written longer" },
};

static void test_refusals(void)
{
    size_t i;
    for (i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const refusal *t = &refusals[i];
        uint8_t in[64];
        size_t n = unhex(t->hex, in, sizeof in);
        aps_cbor_reader_options o;
        aps_error err = APS_ERROR_INIT;
        aps_status st;
        memset(&o, 0, sizeof o);
        o.deterministic = t->deterministic != 0;
        st = aps_cbor_validate(in, n, &o, &err);
        if (st != t->code || err.offset != t->offset || strcmp(err.pointer, t->pointer) != 0 ||
            strstr(err.message, t->message) == NULL)
            fprintf(stderr, "%s: %s (%d) at %zu \"%s\": %s\n", t->hex, aps_status_str(st), (int)st,
                    err.offset, err.pointer, err.message);
        CHECK_INT(st, t->code);
        CHECK_INT(err.offset, t->offset);
        CHECK_STR(err.pointer, t->pointer);
        CHECK(strstr(err.message, t->message) != NULL);
    }
}

/* Nesting: the limit holds without recursion, for arrays, maps and tags alike. */
static void test_depth(void)
{
    size_t n = 100000, i;
    uint8_t *deep = (uint8_t *)malloc(n + 1);
    aps_cbor_reader_options o;
    aps_error err = APS_ERROR_INIT;
    memset(&o, 0, sizeof o);
    for (i = 0; i < n; i++)
        deep[i] = 0x81; /* [[[[... */
    deep[n] = 0x00;
    CHECK_INT(aps_cbor_validate(deep, n + 1, NULL, &err), APS_E_DEPTH);
    CHECK_INT(err.offset, APS_CBOR_MAX_DEPTH_DEFAULT);
    o.max_depth = 200000;
    CHECK_INT(aps_cbor_validate(deep, n + 1, &o, &err), APS_OK);
    for (i = 0; i < n; i++)
        deep[i] = 0xc1; /* 1(1(1(... */
    CHECK_INT(aps_cbor_validate(deep, n + 1, NULL, &err), APS_E_DEPTH);
    for (i = 0; i < n; i++)
        deep[i] = i % 2 ? 0x00 : 0xa1; /* {0: {0: ... */
    CHECK_INT(aps_cbor_validate(deep, n + 1, NULL, &err), APS_E_DEPTH);
    free(deep);
}

/* A wide map with a repeated key far apart: found, in linear time, by the hash set. */
static void test_wide_map(void)
{
    size_t entries = 5000, i, n = 0;
    uint8_t *buf = (uint8_t *)malloc(entries * 8 + 16);
    aps_error err = APS_ERROR_INIT;
    buf[n++] = 0xb9;
    buf[n++] = (uint8_t)(entries >> 8);
    buf[n++] = (uint8_t)entries;
    for (i = 0; i < entries; i++) {
        uint16_t k = (uint16_t)(i == entries - 1 ? 7 : i); /* the last repeats key 7 */
        buf[n++] = 0x19;
        buf[n++] = (uint8_t)(k >> 8);
        buf[n++] = (uint8_t)k;
        buf[n++] = 0xf6;
    }
    CHECK_INT(aps_cbor_validate(buf, n, NULL, &err), APS_E_DUPLICATE);
    CHECK_INT(err.offset, n - 4);
    buf[n - 3] = 0xff; /* key 0xff07: new */
    CHECK_INT(aps_cbor_validate(buf, n, NULL, &err), APS_OK);
    free(buf);
}

/* Keys are compared in canonical form: 1 and 0x1801, "a" and (_ "a") are the same key. */
static void test_canonical_keys(void)
{
    uint8_t in[32];
    size_t n;
    aps_error err = APS_ERROR_INIT;
    aps_arena arena;
    aps_cbor_reader r;
    aps_cbor_raw key;
    int more;
    uint64_t v;
    n = unhex("a20100180102", in, sizeof in);
    CHECK_INT(aps_cbor_validate(in, n, NULL, &err), APS_E_DUPLICATE);
    n = unhex("a261610f7f6161ff0f", in, sizeof in);
    CHECK_INT(aps_cbor_validate(in, n, NULL, &err), APS_E_DUPLICATE);
    n = unhex("a2f93c0001fa3f80000002", in, sizeof in); /* 1.0 as half and as single */
    CHECK_INT(aps_cbor_validate(in, n, NULL, &err), APS_E_DUPLICATE);

    aps_arena_init(&arena, NULL);
    n = unhex("a17f6261626163ff1818", in, sizeof in); /* {(_ "ab", "c"): 24} */
    aps_cbor_reader_init(&r, in, n, &arena, NULL);
    CHECK_INT(aps_cbor_read_map(&r, NULL, &err), APS_OK);
    CHECK_INT(aps_cbor_next_entry(&r, &key, &more, &err), APS_OK);
    CHECK_INT(more, 1);
    CHECK(aps_cbor_raw_is_text(key, "abc", 3));
    CHECK_INT(aps_cbor_read_uint(&r, &v, &err), APS_OK);
    CHECK_INT(v, 24);
    CHECK_INT(aps_cbor_next_entry(&r, &key, &more, &err), APS_OK);
    CHECK_INT(more, 0);
    CHECK_INT(aps_cbor_reader_finish(&r, &err), APS_OK);
    aps_arena_deinit(&arena);
}

/* Typed reads: the kind, the range, the path of a failing member. */
static void test_typed_reads(void)
{
    uint8_t in[64];
    size_t n = unhex("a2636e756d3bffffffffffffffff6474657874a1617801", in, sizeof in);
    aps_arena arena;
    aps_cbor_reader r;
    aps_cbor_raw key;
    aps_error err = APS_ERROR_INIT;
    int64_t i;
    int more, neg;
    uint64_t u;
    aps_slice s;
    aps_arena_init(&arena, NULL);
    aps_cbor_reader_init(&r, in, n, &arena, NULL);
    CHECK_INT(aps_cbor_read_map(&r, &u, &err), APS_OK);
    CHECK_INT(u, 2);
    CHECK_INT(aps_cbor_next_entry(&r, &key, &more, &err), APS_OK);
    CHECK(aps_cbor_raw_is_text(key, "num", 3));
    CHECK_INT(aps_cbor_read_int(&r, &i, &err), APS_E_RANGE);
    CHECK_STR(err.pointer, "/num");
    CHECK_INT(err.offset, 5);
    aps_error_clear(&err);
    CHECK_INT(aps_cbor_read_text(&r, &s, &err), APS_E_TYPE);
    CHECK(strstr(err.message, "expected a text string, got a negative integer") != NULL);
    aps_error_clear(&err);
    CHECK_INT(aps_cbor_read_integer(&r, &neg, &u, &err), APS_OK);
    CHECK(neg == 1 && u == UINT64_MAX);
    CHECK_INT(aps_cbor_next_entry(&r, &key, &more, &err), APS_OK);
    CHECK(aps_cbor_raw_is_text(key, "text", 4));
    CHECK_INT(aps_cbor_read_map(&r, NULL, &err), APS_OK);
    CHECK_INT(aps_cbor_next_entry(&r, &key, &more, &err), APS_OK);
    CHECK_INT(aps_cbor_read_text(&r, &s, &err), APS_E_TYPE);
    CHECK_STR(err.pointer, "/text/x");
    aps_arena_deinit(&arena);
}

/* RFC 8742 sequences, on both sides. */
static void test_sequence(void)
{
    uint8_t in[16];
    size_t n = unhex("01f66161", in, sizeof in);
    aps_cbor_reader_options o;
    aps_error err = APS_ERROR_INIT;
    aps_arena arena;
    aps_slice diag;
    aps_cbor_writer w;
    memset(&o, 0, sizeof o);
    o.sequence = true;
    CHECK_INT(aps_cbor_validate(in, n, &o, &err), APS_OK);
    CHECK_INT(aps_cbor_validate(in, 0, &o, &err), APS_OK);
    CHECK_INT(aps_cbor_validate(in, n, NULL, &err), APS_E_SYNTAX);
    CHECK_INT(aps_cbor_validate(in, n - 1, &o, &err), APS_E_SYNTAX);
    aps_arena_init(&arena, NULL);
    CHECK_INT(aps_cbor_diag(in, n, true, &arena, &diag, &err), APS_OK);
    CHECK_STR(diag.ptr, "1, null, \"a\"");
    CHECK_INT(aps_cbor_diag(in, 0, true, &arena, &diag, &err), APS_OK);
    CHECK_STR(diag.ptr, "");
    aps_arena_deinit(&arena);

    aps_cbor_writer_init(&w, NULL);
    aps_cbor_write_uint(&w, 1);
    CHECK_INT(aps_cbor_writer_finish(&w, &err), APS_OK);
    aps_cbor_write_null(&w); /* a second root item without _next */
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_STATE);
    aps_cbor_writer_reset(&w);
    aps_cbor_write_uint(&w, 1);
    aps_cbor_writer_next(&w);
    aps_cbor_write_null(&w);
    aps_cbor_writer_next(&w);
    aps_cbor_write_text(&w, "a", 1);
    CHECK_INT(aps_cbor_writer_finish(&w, &err), APS_OK);
    CHECK(same_bytes(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w), in, n, "sequence"));
    aps_cbor_writer_deinit(&w);
}

/* ---- the writer -------------------------------------------------------------------- */

static int writes(aps_cbor_writer *w, const char *hex)
{
    uint8_t want[256];
    size_t n = unhex(hex, want, sizeof want);
    int ok = aps_cbor_writer_finish(w, NULL) == APS_OK &&
             same_bytes(aps_cbor_writer_data(w), aps_cbor_writer_len(w), want, n, hex);
    aps_cbor_writer_reset(w);
    return ok;
}

static void test_writer(void)
{
    aps_cbor_writer w;
    aps_cbor_writer_options o;
    uint8_t small[4];
    aps_cbor_writer_init(&w, NULL);

    aps_cbor_write_int(&w, INT64_MIN);
    CHECK(writes(&w, "3b7fffffffffffffff"));
    aps_cbor_write_float(&w, 0.1f); /* a float32 value: 4 bytes */
    CHECK(writes(&w, "fa3dcccccd"));
    aps_cbor_write_float(&w, 0.1);
    CHECK(writes(&w, "fb3fb999999999999a"));
    aps_cbor_write_float(&w, -0.0);
    CHECK(writes(&w, "f98000"));
    aps_cbor_write_float(&w, 5.960464477539063e-8);
    CHECK(writes(&w, "f90001"));
    aps_cbor_write_float(&w, 1023.0 / 16777216.0); /* the largest half subnormal */
    CHECK(writes(&w, "f903ff"));
    aps_cbor_write_float_width(&w, 1.5, 8);
    CHECK(writes(&w, "fb3ff8000000000000"));
    aps_cbor_write_float_width(&w, 1.5, 4);
    CHECK(writes(&w, "fa3fc00000"));
    aps_cbor_write_float_width(&w, 0.1, 4);
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_RANGE);
    aps_cbor_writer_reset(&w);
    aps_cbor_write_float_width(&w, 100000.0, 2);
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_RANGE);
    aps_cbor_writer_reset(&w);

    /* counts are checked */
    aps_cbor_write_array_begin(&w, 2);
    aps_cbor_write_uint(&w, 1);
    aps_cbor_write_array_end(&w);
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_STATE);
    aps_cbor_writer_reset(&w);
    aps_cbor_write_map_begin(&w, 1);
    aps_cbor_write_uint(&w, 1);
    aps_cbor_write_uint(&w, 2);
    aps_cbor_write_uint(&w, 3);
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_STATE);
    aps_cbor_writer_reset(&w);
    aps_cbor_write_map_begin(&w, APS_CBOR_INDEFINITE);
    aps_cbor_write_uint(&w, 1);
    aps_cbor_write_map_end(&w); /* a key without its value */
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_STATE);
    aps_cbor_writer_reset(&w);
    aps_cbor_write_text_begin(&w);
    aps_cbor_write_bytes(&w, "a", 1); /* a byte chunk in a text string */
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_STATE);
    aps_cbor_writer_reset(&w);
    aps_cbor_write_tag(&w, 1);
    CHECK_INT(aps_cbor_writer_finish(&w, NULL), APS_E_STATE); /* a tag without its item */
    aps_cbor_writer_reset(&w);
    aps_cbor_write_simple(&w, 22); /* null has its own call */
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_ARGUMENT);
    aps_cbor_writer_reset(&w);
    CHECK_INT(aps_cbor_writer_finish(&w, NULL), APS_E_STATE); /* nothing written */
    aps_cbor_writer_deinit(&w);

    /* deterministic: maps sorted by their keys' bytes, nested first */
    memset(&o, 0, sizeof o);
    o.deterministic = true;
    aps_cbor_writer_init(&w, &o);
    aps_cbor_write_map_begin(&w, 4);
    aps_cbor_write_text(&w, "bb", 2);
    aps_cbor_write_map_begin(&w, 2);
    aps_cbor_write_int(&w, -1);
    aps_cbor_write_null(&w);
    aps_cbor_write_uint(&w, 10);
    aps_cbor_write_bool(&w, 1);
    aps_cbor_write_map_end(&w);
    aps_cbor_write_text(&w, "a", 1);
    aps_cbor_write_uint(&w, 1);
    aps_cbor_write_uint(&w, 100);
    aps_cbor_write_uint(&w, 2);
    aps_cbor_write_tag(&w, 1);
    aps_cbor_write_uint(&w, 0);
    aps_cbor_write_uint(&w, 3);
    aps_cbor_write_map_end(&w);
    /* keys: 1864 (100) < 6161 ("a") < 626262 ("bb") < c100 (1(0)); inside: 0a < 20 */
    CHECK(writes(&w, "a41864026161016262" "62a20af520f6c10003"));
    aps_cbor_write_map_begin(&w, 2);
    aps_cbor_write_uint(&w, 1);
    aps_cbor_write_uint(&w, 1);
    aps_cbor_write_uint(&w, 1);
    aps_cbor_write_uint(&w, 2);
    aps_cbor_write_map_end(&w);
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_DUPLICATE);
    aps_cbor_writer_reset(&w);
    aps_cbor_write_array_begin(&w, APS_CBOR_INDEFINITE);
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_ARGUMENT);
    aps_cbor_writer_deinit(&w);

    /* a fixed buffer that is too small */
    aps_cbor_writer_init_fixed(&w, small, sizeof small, NULL);
    aps_cbor_write_text(&w, "abcd", 4);
    CHECK_INT(aps_cbor_writer_status(&w), APS_E_LIMIT);
    aps_cbor_writer_deinit(&w);
}

/* Every half-precision value converts to a double and back to the same bits. */
static void test_half_exhaustive(void)
{
    unsigned h;
    int bad = 0;
    for (h = 0; h < 65536; h++) {
        uint8_t in[3], out[9];
        aps_cbor_reader r;
        aps_arena a;
        aps_cbor_writer w;
        double d;
        int width;
        in[0] = 0xf9;
        in[1] = (uint8_t)(h >> 8);
        in[2] = (uint8_t)h;
        aps_arena_init(&a, NULL);
        aps_cbor_reader_init(&r, in, 3, &a, NULL);
        if (aps_cbor_read_float(&r, &d, &width, NULL) != APS_OK || width != 2)
            bad++;
        aps_cbor_writer_init_fixed(&w, out, sizeof out, NULL);
        aps_cbor_write_float(&w, d);
        if (isnan(d)) {
            if (aps_cbor_writer_len(&w) != 3 || out[1] != 0x7e || out[2] != 0)
                bad++;
        } else if (aps_cbor_writer_len(&w) != 3 || memcmp(out, in, 3) != 0) {
            bad++;
        }
        aps_arena_deinit(&a);
    }
    CHECK_INT(bad, 0);
}


/* ---- JSON and CBOR ---------------------------------------------------------------- */

typedef struct conversion {
    const char *json;
    const char *diag; /* of the CBOR it converts to */
} conversion;

static const conversion conversions[] = {
    { "0", "0" },
    { "-0", "0" },
    { "18446744073709551615", "18446744073709551615" },
    { "-18446744073709551616", "-18446744073709551616" },
    { "18446744073709551616", "2(h'010000000000000000')" },
    { "-18446744073709551617", "3(h'010000000000000000')" },
    { "123456789012345678901234567890", "2(h'018ee90ff6c373e0ee4e3f0ad2')" },
    { "1.5", "1.5" },
    { "0.1", "0.1" },
    { "-0.0", "-0.0" },
    { "1e2", "100.0" },
    { "6.02E+23", "6.02e+23" },
    { "1e400", "4([400, 1])" },
    { "1e-400", "4([-400, 1])" },
    { "3.14159265358979323846264338327950288", "4([-35, 2(h'3c813f6636d984f2595b6a372a53d0')])" },
    { "-2.5e-1000", "4([-1001, -25])" },
    { "100000000000000000000000", "2(h'152d02c7e14af6800000')" },
    { "{\"a\":[true,false,null,\"x\\u00fc\"],\"\":{}}", "{\"a\": [true, false, null, \"x\\u00fc\"], \"\": {}}" },
};

static void test_json_conversions(void)
{
    size_t i;
    for (i = 0; i < sizeof conversions / sizeof conversions[0]; i++) {
        const conversion *t = &conversions[i];
        aps_arena arena;
        aps_json_reader jr;
        aps_cbor_reader cr;
        aps_cbor_writer cw;
        aps_json_writer jw;
        aps_error err = APS_ERROR_INIT;
        aps_slice diag;
        aps_json_raw a, b;
        int equal = 0;
        aps_arena_init(&arena, NULL);
        aps_json_reader_init(&jr, t->json, strlen(t->json), &arena, NULL);
        aps_cbor_writer_init(&cw, NULL);
        aps_json_writer_init(&jw, NULL);
        CHECK_INT(aps_json_to_cbor(&jr, &cw, &err), APS_OK);
        CHECK_INT(aps_cbor_writer_finish(&cw, &err), APS_OK);
        CHECK_INT(aps_cbor_diag(aps_cbor_writer_data(&cw), aps_cbor_writer_len(&cw), false, &arena, &diag, &err),
                  APS_OK);
        if (diag.ptr == NULL || strcmp(diag.ptr, t->diag) != 0)
            fprintf(stderr, "%s: CBOR %s, want %s\n", t->json, diag.ptr ? diag.ptr : "(none)", t->diag);
        CHECK(diag.ptr != NULL && strcmp(diag.ptr, t->diag) == 0);
        /* and back, to the same number, digit for digit */
        aps_cbor_reader_init(&cr, aps_cbor_writer_data(&cw), aps_cbor_writer_len(&cw), &arena, NULL);
        CHECK_INT(aps_cbor_to_json(&cr, &jw, &err), APS_OK);
        CHECK_INT(aps_json_writer_finish(&jw, &err), APS_OK);
        a.ptr = t->json;
        a.len = strlen(t->json);
        b.ptr = aps_json_writer_data(&jw);
        b.len = aps_json_writer_len(&jw);
        CHECK_INT(aps_json_raw_equal(a, b, &equal), APS_OK);
        if (!equal)
            fprintf(stderr, "%s came back as %.*s\n", t->json, (int)b.len, b.ptr);
        CHECK(equal);
        aps_json_writer_deinit(&jw);
        aps_cbor_writer_deinit(&cw);
        aps_arena_deinit(&arena);
    }
}

/* A float converts to JSON text that reads back as a float: a '.' or an exponent, -0.0 signed. */
static void test_float_text(void)
{
    static const struct { const char *hex; const char *json; } cases[] = {
        { "f93c00", "1.0" }, { "f98000", "-0.0" }, { "fb7e37e43c8800759c", "1.0e+300" }, { "f90001", "5.960464477539063e-8" },
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t in[16];
        size_t n = unhex(cases[i].hex, in, sizeof in);
        aps_arena arena;
        aps_cbor_reader r;
        aps_json_writer w;
        aps_arena_init(&arena, NULL);
        aps_cbor_reader_init(&r, in, n, &arena, NULL);
        aps_json_writer_init(&w, NULL);
        CHECK_INT(aps_cbor_to_json(&r, &w, NULL), APS_OK);
        CHECK(aps_json_writer_len(&w) == strlen(cases[i].json) &&
              memcmp(aps_json_writer_data(&w), cases[i].json, aps_json_writer_len(&w)) == 0);
        aps_json_writer_deinit(&w);
        aps_arena_deinit(&arena);
    }
}

/* What JSON does not hold is refused where it is, and nothing else. */
static void test_no_json_form(void)
{
    static const struct { const char *hex; const char *pointer; const char *message; } cases[] = {
        { "a16161820141ff", "/a/1", "a byte string has no JSON form" },
        { "a1616182f7f6", "/a/0", "undefined has no JSON form" },
        { "82f97e0001", "/0", "NaN has no JSON form" },
        { "a10102", "/1", "a map key that is not a text string" },
        { "c16161", "", "tag 1 has no JSON form" },
        { "c48101", "", "a decimal fraction (tag 4) is [exponent, mantissa]" },
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t in[32];
        size_t n = unhex(cases[i].hex, in, sizeof in);
        aps_arena arena;
        aps_cbor_reader r;
        aps_json_writer w;
        aps_error err = APS_ERROR_INIT;
        aps_arena_init(&arena, NULL);
        aps_cbor_reader_init(&r, in, n, &arena, NULL);
        aps_json_writer_init(&w, NULL);
        CHECK(aps_cbor_to_json(&r, &w, &err) != APS_OK);
        if (strcmp(err.pointer, cases[i].pointer) != 0 || strstr(err.message, cases[i].message) == NULL)
            fprintf(stderr, "%s: \"%s\" %s\n", cases[i].hex, err.pointer, err.message);
        CHECK_STR(err.pointer, cases[i].pointer);
        CHECK(strstr(err.message, cases[i].message) != NULL);
        aps_json_writer_deinit(&w);
        aps_arena_deinit(&arena);
    }
}

int main(void)
{
    test_appendix_a();
    test_refusals();
    test_depth();
    test_wide_map();
    test_canonical_keys();
    test_typed_reads();
    test_sequence();
    test_writer();
    test_half_exhaustive();
    test_json_conversions();
    test_no_json_form();
    test_float_text();
    return test_report();
}
