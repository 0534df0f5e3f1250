/* test_raw.c - raw JSON values (kind, member lookup, equality) and reader allocation failures. */
#include "aps/json.h"

#include "../test.h"
#include "test_util.h"

#include <stdlib.h>

static aps_json_raw raw(const char *s)
{
    aps_json_raw r;
    r.ptr = s;
    r.len = strlen(s);
    return r;
}

static int equal(const char *a, const char *b)
{
    int eq = -1;
    if (aps_json_raw_equal(raw(a), raw(b), &eq) != APS_OK)
        return -1;
    return eq;
}

static void test_kind_and_member(void)
{
    aps_arena a;
    aps_json_raw v;
    aps_error err = APS_ERROR_INIT;
    const char *obj = "{\"a\":1,\"t\\u0079pe\":{\"k\":[1,2]},\"z\":null}";
    aps_arena_init(&a, NULL);
    CHECK_INT(aps_json_raw_kind(raw(" {}")), APS_JSON_OBJECT);
    CHECK_INT(aps_json_raw_kind(raw("[]")), APS_JSON_ARRAY);
    CHECK_INT(aps_json_raw_kind(raw("\"\"")), APS_JSON_STRING);
    CHECK_INT(aps_json_raw_kind(raw("-1")), APS_JSON_NUMBER);
    CHECK_INT(aps_json_raw_kind(raw("false")), APS_JSON_BOOL);
    CHECK_INT(aps_json_raw_kind(raw("null")), APS_JSON_NULL);
    CHECK_INT(aps_json_raw_kind(raw("")), APS_JSON_INVALID);
    CHECK_INT(aps_json_raw_member(raw(obj), "type", 4, &a, &v, NULL), APS_OK);
    CHECK(v.ptr == obj + 19 && v.len == 11);
    CHECK_INT(aps_json_raw_member(raw(obj), "q", 1, &a, &v, NULL), APS_E_NOT_FOUND);
    CHECK_INT(aps_json_raw_member(raw("[1]"), "q", 1, &a, &v, &err), APS_E_TYPE);
    CHECK_STR(err.message, "expected an object, got an array");
    /* Walking a raw value with the reader. */
    {
        aps_json_reader r;
        int more, n = 0;
        aps_json_raw_reader(&r, v, &a);
        CHECK_INT(aps_json_read_object(&r, NULL), APS_OK);
        while (aps_json_next_member(&r, &(aps_slice){ 0, 0 }, &more, NULL) == APS_OK && more) {
            CHECK_INT(aps_json_skip(&r, NULL), APS_OK);
            n++;
        }
        CHECK_INT(n, 1);
        CHECK_INT(aps_json_reader_finish(&r, NULL), APS_OK);
    }
    aps_arena_deinit(&a);
}

static void test_equal(void)
{
    CHECK_INT(equal("{\"a\":1,\"b\":[1,2]}", "{ \"b\" : [1, 2], \"a\" : 1 }"), 1);
    CHECK_INT(equal("{\"a\":1}", "{\"a\":1,\"b\":2}"), 0);
    CHECK_INT(equal("{\"a\":1,\"b\":2}", "{\"a\":1,\"c\":2}"), 0);
    CHECK_INT(equal("[1,2]", "[2,1]"), 0);
    CHECK_INT(equal("[1,2]", "[1,2,3]"), 0);
    CHECK_INT(equal("[]", "[ ]"), 1);
    CHECK_INT(equal("1", "1.0"), 1);
    CHECK_INT(equal("100", "1e2"), 1);
    CHECK_INT(equal("100", "1E+2"), 1);
    CHECK_INT(equal("0.5", "5e-1"), 1);
    CHECK_INT(equal("-0", "0"), 1);
    CHECK_INT(equal("0.0e5", "0"), 1);
    CHECK_INT(equal("1", "-1"), 0);
    CHECK_INT(equal("12345678901234567890123", "12345678901234567890124"), 0);
    CHECK_INT(equal("12345678901234567890123", "1.2345678901234567890123e22"), 1);
    CHECK_INT(equal("1", "\"1\""), 0);
    CHECK_INT(equal("\"type\"", "\"\\u0074ype\""), 1);
    CHECK_INT(equal("\"\\ud83d\\ude00\"", "\"\xF0\x9F\x98\x80\""), 1);
    CHECK_INT(equal("\"a\\/b\"", "\"a/b\""), 1);
    CHECK_INT(equal("\"ab\"", "\"abc\""), 0);
    CHECK_INT(equal("{\"\\u0061\":{\"x\":[true,null]}}", "{\"a\":{\"x\":[true,null]}}"), 1);
    CHECK_INT(equal("{\"a\":{\"x\":[true,null]}}", "{\"a\":{\"x\":[true,false]}}"), 0);
    CHECK_INT(equal("true", "false"), 0);
    CHECK_INT(equal("null", "null"), 1);
    {
        char deep[2100];
        int eq;
        memset(deep, '[', 1000);
        memset(deep + 1000, ']', 1000);
        CHECK_INT(aps_json_raw_equal((aps_json_raw){ deep, 2000 }, (aps_json_raw){ deep, 2000 }, &eq),
                  APS_E_DEPTH);
    }
}

/* The reader with every arena allocation failing in turn: a clean error each time. */
static void test_reader_alloc_failures(void)
{
    char *doc = malloc(100000);
    size_t len = 0, i;
    long n;
    int done = 0;
    len += (size_t)sprintf(doc + len, "{");
    for (i = 0; i < 200; i++)
        len += (size_t)sprintf(doc + len, "%s\"k\\u00e9%zu\":\"v\\n%zu\"", i ? "," : "", i, i);
    len += (size_t)sprintf(doc + len, ",\"deep\":");
    for (i = 0; i < 100; i++)
        doc[len++] = '[';
    for (i = 0; i < 100; i++)
        doc[len++] = ']';
    doc[len++] = '}';
    for (n = 0; !done; n++) {
        test_alloc f;
        aps_arena_options o;
        aps_arena a;
        aps_error err = APS_ERROR_INIT;
        aps_json_reader r;
        aps_status st;
        memset(&o, 0, sizeof o);
        test_alloc_init(&f, n, 0);
        o.allocator = test_alloc_hooks(&f);
        o.chunk_size = 512;
        aps_arena_init(&a, &o);
        aps_json_reader_init(&r, doc, len, &a, NULL);
        st = aps_json_skip(&r, &err);
        if (f.calls <= n) {
            done = 1;
            CHECK_INT(st, APS_OK);
        } else {
            CHECK_INT(st, APS_E_NOMEM);
            CHECK(strstr(err.message, "arena") != NULL);
        }
        aps_arena_deinit(&a);
        CHECK_INT(f.live, 0);
    }
    CHECK(n > 5);
    free(doc);
}

int main(void)
{
    test_kind_and_member();
    test_equal();
    test_reader_alloc_failures();
    return test_report();
}
