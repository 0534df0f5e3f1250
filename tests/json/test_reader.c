/* test_reader.c - the JSON pull reader: strings, numbers, containers, errors. */
#include "aps/json.h"

#include "../test.h"

#include <stdlib.h>

static aps_arena arena;

/* Reads one string from `json` (whole text); returns its status, fills out. */
static aps_status read_str(const char *json, aps_slice *out, aps_error *err)
{
    aps_json_reader r;
    aps_status st;
    aps_json_reader_init(&r, json, strlen(json), &arena, NULL);
    st = aps_json_read_string(&r, out, err);
    if (st == APS_OK)
        st = aps_json_reader_finish(&r, err);
    return st;
}

static int slice_is(aps_slice s, const char *want, size_t len)
{
    return s.len == len && memcmp(s.ptr, want, len) == 0;
}

static void test_strings(void)
{
    aps_slice s;
    aps_error err = APS_ERROR_INIT;
    const char *plain = "\"hello, world, a longer plain string\"";
    CHECK_INT(read_str(plain, &s, NULL), APS_OK);
    CHECK(s.ptr == plain + 1); /* zero-copy */
    CHECK(slice_is(s, "hello, world, a longer plain string", 35));
    CHECK_INT(read_str("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"", &s, NULL), APS_OK);
    CHECK(slice_is(s, "a\"b\\c/d\be\ff\ng\rh\ti", 17));
    CHECK_INT(read_str("\"\\u0074ype\"", &s, NULL), APS_OK);
    CHECK(slice_is(s, "type", 4));
    CHECK_INT(read_str("\"\\u00e9\\u20AC\\ud83d\\ude00\"", &s, NULL), APS_OK);
    CHECK(slice_is(s, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", 9));
    CHECK_INT(read_str("\"\\u0000\"", &s, NULL), APS_OK);
    CHECK(s.len == 1 && s.ptr[0] == '\0');
    CHECK_INT(read_str("\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 long enough for words\"", &s, NULL),
              APS_OK);
    CHECK_INT(read_str("\"\"", &s, NULL), APS_OK);
    CHECK_INT(s.len, 0);
    /* Lone surrogates, in either order or incomplete. */
    CHECK_INT(read_str("\"\\ud800\"", &s, &err), APS_E_UTF8);
    CHECK_INT(err.offset, 1);
    CHECK_INT(read_str("\"\\udc00\"", &s, NULL), APS_E_UTF8);
    CHECK_INT(read_str("\"\\ud800\\u0041\"", &s, NULL), APS_E_UTF8);
    CHECK_INT(read_str("\"\\ude00\\ud83d\"", &s, NULL), APS_E_UTF8);
    CHECK_INT(read_str("\"\\ud83d\\ude0\"", &s, NULL), APS_E_UTF8);
    /* Bad escapes, controls, raw bad UTF-8, unterminated. */
    CHECK_INT(read_str("\"\\x\"", &s, NULL), APS_E_SYNTAX);
    CHECK_INT(read_str("\"\\u12G4\"", &s, NULL), APS_E_SYNTAX);
    CHECK_INT(read_str("\"a\tb\"", &s, NULL), APS_E_SYNTAX);
    CHECK_INT(read_str("\"0123456789abcdef\x01\"", &s, NULL), APS_E_SYNTAX);
    CHECK_INT(read_str("\"\xC0\xAF\"", &s, NULL), APS_E_UTF8);            /* overlong */
    CHECK_INT(read_str("\"\xED\xA0\x80\"", &s, NULL), APS_E_UTF8);        /* raw surrogate */
    CHECK_INT(read_str("\"\xF4\x90\x80\x80\"", &s, NULL), APS_E_UTF8);    /* > U+10FFFF */
    CHECK_INT(read_str("\"abc\xE2\x82\"", &s, NULL), APS_E_UTF8);         /* truncated */
    CHECK_INT(read_str("\"abc", &s, NULL), APS_E_SYNTAX);
    CHECK_INT(read_str("\"abc\\", &s, NULL), APS_E_SYNTAX);
    aps_error_clear(&err);
    CHECK_INT(read_str("12", &s, &err), APS_E_TYPE);
    CHECK_STR(err.message, "expected a string, got a number");
    /* Escape right at every position of a word, so the scanner's word steps meet it. */
    {
        char buf[64];
        int i;
        for (i = 0; i < 20; i++) {
            memset(buf, 0, sizeof buf);
            buf[0] = '"';
            memset(buf + 1, 'x', (size_t)i);
            strcpy(buf + 1 + i, "\\n0123456789\"");
            CHECK_INT(read_str(buf, &s, NULL), APS_OK);
            CHECK_INT(s.len, i + 11);
            CHECK(s.ptr[i] == '\n');
        }
    }
}

static aps_status read_i64(const char *json, int64_t *v)
{
    aps_json_reader r;
    aps_status st;
    aps_json_reader_init(&r, json, strlen(json), &arena, NULL);
    st = aps_json_read_int64(&r, v, NULL);
    return st ? st : aps_json_reader_finish(&r, NULL);
}

static aps_status read_u64(const char *json, uint64_t *v)
{
    aps_json_reader r;
    aps_status st;
    aps_json_reader_init(&r, json, strlen(json), &arena, NULL);
    st = aps_json_read_uint64(&r, v, NULL);
    return st ? st : aps_json_reader_finish(&r, NULL);
}

static aps_status read_dbl(const char *json, double *v)
{
    aps_json_reader r;
    aps_status st;
    aps_json_reader_init(&r, json, strlen(json), &arena, NULL);
    st = aps_json_read_double(&r, v, NULL);
    return st ? st : aps_json_reader_finish(&r, NULL);
}

static void test_numbers(void)
{
    int64_t i;
    uint64_t u;
    double d;
    aps_slice t;
    aps_json_reader r;
    CHECK_INT(read_i64("0", &i), APS_OK);
    CHECK_INT(i, 0);
    CHECK_INT(read_i64("-0", &i), APS_OK);
    CHECK_INT(i, 0);
    CHECK_INT(read_i64(" 42 ", &i), APS_OK);
    CHECK_INT(i, 42);
    CHECK_INT(read_i64("9223372036854775807", &i), APS_OK);
    CHECK(i == INT64_MAX);
    CHECK_INT(read_i64("-9223372036854775808", &i), APS_OK);
    CHECK(i == INT64_MIN);
    CHECK_INT(read_i64("9223372036854775808", &i), APS_E_RANGE);
    CHECK_INT(read_i64("-9223372036854775809", &i), APS_E_RANGE);
    CHECK_INT(read_i64("123456789012345678901234567890", &i), APS_E_RANGE);
    CHECK_INT(read_i64("1.0", &i), APS_E_TYPE);
    CHECK_INT(read_i64("1e3", &i), APS_E_TYPE);
    CHECK_INT(read_i64("1.", &i), APS_E_SYNTAX);
    CHECK_INT(read_i64("01", &i), APS_E_SYNTAX);
    CHECK_INT(read_i64("-", &i), APS_E_SYNTAX);
    CHECK_INT(read_i64("+1", &i), APS_E_SYNTAX);
    CHECK_INT(read_i64("\"1\"", &i), APS_E_TYPE);
    CHECK_INT(read_u64("18446744073709551615", &u), APS_OK);
    CHECK(u == UINT64_MAX);
    CHECK_INT(read_u64("18446744073709551616", &u), APS_E_RANGE);
    CHECK_INT(read_u64("99999999999999999999", &u), APS_E_RANGE);
    CHECK_INT(read_u64("-1", &u), APS_E_RANGE);
    CHECK_INT(read_u64("-0", &u), APS_OK);
    CHECK_INT(read_u64("10000000000000000000", &u), APS_OK);
    CHECK(u == 10000000000000000000ull);
    CHECK_INT(read_dbl("1.5", &d), APS_OK);
    CHECK(d == 1.5);
    CHECK_INT(read_dbl("-0.0", &d), APS_OK);
    CHECK(d == 0.0);
    CHECK_INT(read_dbl("0.1", &d), APS_OK);
    CHECK(d == 0.1);
    CHECK_INT(read_dbl("1e23", &d), APS_OK);
    CHECK(d == 1e23);
    CHECK_INT(read_dbl("2.2250738585072011e-308", &d), APS_OK);
    CHECK(d == 2.2250738585072011e-308);
    CHECK_INT(read_dbl("4.9e-324", &d), APS_OK);
    CHECK(d == 4.9e-324);
    CHECK_INT(read_dbl("1e-400", &d), APS_OK);
    CHECK(d == 0.0);
    CHECK_INT(read_dbl("1.7976931348623157e308", &d), APS_OK);
    CHECK_INT(read_dbl("1e400", &d), APS_E_RANGE);
    CHECK_INT(read_dbl("123456789012345678901234567890", &d), APS_OK);
    CHECK(d == 123456789012345678901234567890.0);
    CHECK_INT(read_dbl("0.000001234e-10", &d), APS_OK);
    CHECK(d == 0.000001234e-10);
    CHECK_INT(read_dbl("1E+2", &d), APS_OK);
    CHECK(d == 100.0);
    CHECK_INT(read_dbl("1.e2", &d), APS_E_SYNTAX);
    CHECK_INT(read_dbl(".5", &d), APS_E_SYNTAX);
    CHECK_INT(read_dbl("1e", &d), APS_E_SYNTAX);
    /* 800 digits then a 1: decided by the digits past what fits in a word. */
    {
        char big[900];
        memset(big, 0, sizeof big);
        big[0] = '1';
        memset(big + 1, '0', 799);
        strcat(big, "1e-800");
        CHECK_INT(read_dbl(big, &d), APS_OK);
        CHECK(d == 1.0);
    }
    aps_json_reader_init(&r, "-12.50e+3", 9, &arena, NULL);
    CHECK_INT(aps_json_read_number(&r, &t, NULL), APS_OK);
    CHECK(slice_is(t, "-12.50e+3", 9));
}

/* Walks {"a":[1,{"b":null}],"c":true} with the pull calls. */
static void test_walk(void)
{
    const char *json = " {\"a\" : [1, {\"b\":null}], \"c\":true, \"d\":\"x\"} ";
    aps_json_reader r;
    aps_slice key, s;
    int more, b;
    int64_t i;
    aps_json_reader_init(&r, json, strlen(json), &arena, NULL);
    CHECK_INT(aps_json_peek(&r), APS_JSON_OBJECT);
    CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK(more && slice_is(key, "a", 1));
    CHECK_INT(aps_json_peek(&r), APS_JSON_ARRAY);
    CHECK_INT(aps_json_read_array(&r, NULL), APS_OK);
    CHECK_INT(aps_json_next_element(&r, &more, NULL), APS_OK);
    CHECK(more);
    CHECK_INT(aps_json_read_int64(&r, &i, NULL), APS_OK);
    CHECK_INT(i, 1);
    CHECK_INT(aps_json_next_element(&r, &more, NULL), APS_OK);
    CHECK(more);
    CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK(more && slice_is(key, "b", 1));
    CHECK_INT(aps_json_peek(&r), APS_JSON_NULL);
    CHECK_INT(aps_json_read_null(&r, NULL), APS_OK);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK(!more);
    CHECK_INT(aps_json_next_element(&r, &more, NULL), APS_OK);
    CHECK(!more);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK(more && slice_is(key, "c", 1));
    CHECK_INT(aps_json_read_bool(&r, &b, NULL), APS_OK);
    CHECK_INT(b, 1);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK_INT(aps_json_read_string(&r, &s, NULL), APS_OK);
    CHECK(slice_is(s, "x", 1));
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK(!more);
    CHECK_INT(aps_json_reader_finish(&r, NULL), APS_OK);
}

static aps_status validate(const char *json, aps_error *err)
{
    return aps_json_validate(json, strlen(json), NULL, err);
}

static void test_errors_and_pointers(void)
{
    aps_error err = APS_ERROR_INIT;
    CHECK_INT(validate("{\"a\":{\"b/c\":[0,1,{\"~x\":tru}]}}", &err), APS_E_SYNTAX);
    CHECK_STR(err.pointer, "/a/b~1c/2/~0x");
    CHECK_INT(err.offset, 23);
    aps_error_clear(&err);
    CHECK_INT(validate("[1,2,x]", &err), APS_E_SYNTAX);
    CHECK_STR(err.pointer, "/2");
    CHECK_STR(err.message, "expected a value, got 'x'");
    aps_error_clear(&err);
    CHECK_INT(validate("{\"a\":1 \"b\":2}", &err), APS_E_SYNTAX);
    CHECK_INT(err.offset, 7);
    aps_error_clear(&err);
    CHECK_INT(validate("{\"a\":1} x", &err), APS_E_SYNTAX);
    CHECK_INT(err.offset, 8);
    CHECK_STR(err.message, "unexpected bytes after the JSON value");
    CHECK_INT(validate("{\"a\":1}}", NULL), APS_E_SYNTAX);
    CHECK_INT(validate("[1,]", NULL), APS_E_SYNTAX);
    CHECK_INT(validate("", NULL), APS_E_SYNTAX);
    CHECK_INT(validate("  ", NULL), APS_E_SYNTAX);
    CHECK_INT(validate("[", NULL), APS_E_SYNTAX);
    CHECK_INT(validate("{\"a\"}", NULL), APS_E_SYNTAX);
    CHECK_INT(validate("{\"a\":}", NULL), APS_E_SYNTAX);
    CHECK_INT(validate("{,}", NULL), APS_E_SYNTAX);
    CHECK_INT(validate("nul", NULL), APS_E_SYNTAX);
    CHECK_INT(validate(" [true, false, null, -1.5e3, \"\", {}, []] ", NULL), APS_OK);
    /* Schema-level failures a decoder reports through the reader. */
    {
        aps_json_reader r;
        aps_slice key, s;
        int more;
        const char *json = "{\"params\":{\"data\":{\"type\":\"txt-delta\"}}}";
        aps_json_reader_init(&r, json, strlen(json), &arena, NULL);
        CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
        CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
        CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
        CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
        CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
        CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
        CHECK_INT(aps_json_read_string(&r, &s, NULL), APS_OK);
        aps_error_clear(&err);
        CHECK_INT(aps_json_reader_fail(&r, &err, APS_E_UNKNOWN, "expected one of \"text-delta\"; got \"%.*s\"",
                                       (int)s.len, s.ptr), APS_E_UNKNOWN);
        CHECK_STR(err.pointer, "/params/data/type");
        CHECK_INT(err.offset, 26);
        CHECK_STR(err.message, "expected one of \"text-delta\"; got \"txt-delta\"");
        CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
        CHECK(!more);
        aps_error_clear(&err);
        CHECK_INT(aps_json_reader_fail(&r, &err, APS_E_MISSING, "missing"), APS_E_MISSING);
        CHECK_STR(err.pointer, "/params/data");
        CHECK_INT(err.offset, 18);
        aps_error_clear(&err);
        CHECK_INT(aps_json_reader_fail_member(&r, &err, APS_E_MISSING, "thread/Id", "missing"),
                  APS_E_MISSING);
        CHECK_STR(err.pointer, "/params/data/thread~1Id");
        CHECK_INT(err.offset, 18);
    }
}

static void test_duplicates(void)
{
    aps_error err = APS_ERROR_INIT;
    char *big;
    size_t n, i, len = 0;
    CHECK_INT(validate("{\"a\":1,\"b\":2,\"a\":3}", &err), APS_E_DUPLICATE);
    CHECK_STR(err.pointer, "/a");
    CHECK_INT(err.offset, 13);
    CHECK_INT(validate("{\"type\":1,\"\\u0074ype\":2}", NULL), APS_E_DUPLICATE);
    CHECK_INT(validate("{\"x\":[{\"k\":1,\"k\":1}]}", NULL), APS_E_DUPLICATE);
    CHECK_INT(validate("{\"a\":{\"a\":1},\"b\":{\"a\":1}}", NULL), APS_OK);
    {
        aps_json_reader_options allow = { 0, 1 };
        CHECK_INT(aps_json_validate("{\"a\":1,\"a\":1}", 13, &allow, NULL), APS_OK);
    }
    /* Inside a value the decoder skips or captures. */
    {
        aps_json_reader r;
        aps_json_raw raw;
        const char *json = "[{\"q\":{\"z\":1,\"z\":2}}]";
        aps_json_reader_init(&r, json, strlen(json), &arena, NULL);
        aps_error_clear(&err);
        CHECK_INT(aps_json_read_raw(&r, &raw, &err), APS_E_DUPLICATE);
        CHECK_STR(err.pointer, "/0/q/z");
    }
    /* Many members: the hash set. Last one repeats the first; then all distinct. */
    for (n = 10; n <= 20000; n *= 10) {
        big = malloc(n * 16 + 64);
        len = 0;
        big[len++] = '{';
        for (i = 0; i < n; i++)
            len += (size_t)sprintf(big + len, "%s\"k%zu\":%zu", i ? "," : "", i, i);
        len += (size_t)sprintf(big + len, ",\"k0\":0}");
        aps_error_clear(&err);
        CHECK_INT(aps_json_validate(big, len, NULL, &err), APS_E_DUPLICATE);
        CHECK_STR(err.pointer, "/k0");
        big[len - 6] = 'z';
        CHECK_INT(aps_json_validate(big, len, NULL, NULL), APS_OK);
        free(big);
    }
}

static void test_depth(void)
{
    size_t n = 10000, i;
    char *deep = malloc(2 * n + 1);
    aps_error err = APS_ERROR_INIT;
    aps_json_reader_options opt = { 0, 0 };
    for (i = 0; i < n; i++) {
        deep[i] = '[';
        deep[n + i] = ']';
    }
    CHECK_INT(aps_json_validate(deep, 2 * n, NULL, &err), APS_E_DEPTH);
    CHECK_INT(err.offset, 512);
    opt.max_depth = 20000;
    CHECK_INT(aps_json_validate(deep, 2 * n, &opt, NULL), APS_OK);
    opt.max_depth = 3;
    CHECK_INT(aps_json_validate("[[[1]]]", 7, &opt, NULL), APS_OK);
    CHECK_INT(aps_json_validate("[[[[1]]]]", 9, &opt, NULL), APS_E_DEPTH);
    for (i = 0; i < 2 * n / 5; i++)
        memcpy(deep + 5 * i, "{\"a\":", 5);
    CHECK_INT(aps_json_validate(deep, 5 * i, NULL, NULL), APS_E_DEPTH);
    free(deep);
}

/* Scan a whole object for "type", then rewind and read it as that variant. */
static void test_save_restore(void)
{
    const char *json = "{\"text\":\"\\u0068i\",\"n\":{\"x\":[1,2]},\"type\":\"text-delta\"}";
    aps_json_reader r;
    aps_json_pos pos;
    aps_slice key, s, type = { NULL, 0 };
    int more;
    size_t used;
    aps_json_reader_init(&r, json, strlen(json), &arena, NULL);
    aps_json_reader_save(&r, &pos);
    used = aps_arena_used(&arena);
    CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
    while (aps_json_next_member(&r, &key, &more, NULL) == APS_OK && more) {
        if (slice_is(key, "type", 4))
            CHECK_INT(aps_json_read_string(&r, &type, NULL), APS_OK);
        else
            CHECK_INT(aps_json_skip(&r, NULL), APS_OK);
    }
    CHECK(slice_is(type, "text-delta", 10));
    aps_json_reader_restore(&r, &pos);
    CHECK_INT(aps_arena_used(&arena), used);
    CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK_INT(aps_json_read_string(&r, &s, NULL), APS_OK);
    CHECK(slice_is(s, "hi", 2));
    /* Save in the middle of an object: names after it may come again after restoring. */
    aps_json_reader_save(&r, &pos);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK_INT(aps_json_skip(&r, NULL), APS_OK);
    aps_json_reader_restore(&r, &pos);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK(slice_is(key, "n", 1));
    CHECK_INT(aps_json_skip(&r, NULL), APS_OK);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK_INT(aps_json_skip(&r, NULL), APS_OK);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
    CHECK(!more);
    CHECK_INT(aps_json_reader_finish(&r, NULL), APS_OK);
}

/* Save/restore across a hashed object and a deepening frame stack. */
static void test_save_restore_wide(void)
{
    char buf[4096];
    size_t len = 0, i;
    aps_json_reader r;
    aps_json_pos pos;
    aps_slice key;
    int more, round;
    len += (size_t)sprintf(buf + len, "{");
    for (i = 0; i < 40; i++)
        len += (size_t)sprintf(buf + len, "%s\"m%zu\":[[[[[[[[[[[[[[[[[[[[%zu]]]]]]]]]]]]]]]]]]]]",
                               i ? "," : "", i, i);
    len += (size_t)sprintf(buf + len, "}");
    aps_json_reader_init(&r, buf, len, &arena, NULL);
    CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
    for (i = 0; i < 20; i++) {
        CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
        CHECK_INT(aps_json_skip(&r, NULL), APS_OK);
    }
    aps_json_reader_save(&r, &pos);
    for (round = 0; round < 2; round++) {
        for (i = 20; i < 40; i++) {
            CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
            CHECK(more);
            CHECK_INT(aps_json_skip(&r, NULL), APS_OK);
        }
        CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_OK);
        CHECK(!more);
        if (round == 0)
            aps_json_reader_restore(&r, &pos);
    }
    CHECK_INT(aps_json_reader_finish(&r, NULL), APS_OK);
}

static void test_misuse(void)
{
    aps_json_reader r;
    aps_slice key;
    int more;
    aps_json_reader_init(&r, "[1]", 3, &arena, NULL);
    CHECK_INT(aps_json_next_member(&r, &key, &more, NULL), APS_E_STATE);
    CHECK_INT(aps_json_next_element(&r, &more, NULL), APS_E_STATE);
    CHECK_INT(aps_json_read_array(&r, NULL), APS_OK);
    CHECK_INT(aps_json_reader_finish(&r, NULL), APS_E_STATE);
}

int main(void)
{
    aps_arena_init(&arena, NULL);
    test_strings();
    test_numbers();
    test_walk();
    test_errors_and_pointers();
    test_duplicates();
    test_depth();
    test_save_restore();
    test_save_restore_wide();
    test_misuse();
    aps_arena_deinit(&arena);
    return test_report();
}
