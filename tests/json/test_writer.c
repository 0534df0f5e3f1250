/* test_writer.c - the JSON writer: structure, escaping, numbers, buffers, failures. */
#include "aps/json.h"

#include "../test.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int out_is(const aps_json_writer *w, const char *want)
{
    size_t n = strlen(want);
    if (aps_json_writer_len(w) == n && memcmp(aps_json_writer_data(w), want, n) == 0)
        return 1;
    fprintf(stderr, "got: %.*s\nwant: %s\n", (int)aps_json_writer_len(w), aps_json_writer_data(w), want);
    return 0;
}

static void write_sample(aps_json_writer *w)
{
    aps_json_raw raw = { "{\"x\":[1.50,2e400]}", 18 };
    aps_json_write_object_begin(w);
    aps_json_write_key(w, "type", 4);
    aps_json_write_string(w, "text-delta", 10);
    aps_json_write_key(w, "n", 1);
    aps_json_write_array_begin(w);
    aps_json_write_int64(w, INT64_MIN);
    aps_json_write_int64(w, -7);
    aps_json_write_uint64(w, UINT64_MAX);
    aps_json_write_uint64(w, 0);
    aps_json_write_double(w, 0.1);
    aps_json_write_bool(w, 1);
    aps_json_write_bool(w, 0);
    aps_json_write_null(w);
    aps_json_write_array_begin(w);
    aps_json_write_array_end(w);
    aps_json_write_object_begin(w);
    aps_json_write_object_end(w);
    aps_json_write_array_end(w);
    aps_json_write_key(w, "raw", 3);
    aps_json_write_raw(w, raw);
    aps_json_write_object_end(w);
}

static const char sample[] =
    "{\"type\":\"text-delta\",\"n\":[-9223372036854775808,-7,18446744073709551615,0,0.1,true,"
    "false,null,[],{}],\"raw\":{\"x\":[1.50,2e400]}}";

static void test_structure(void)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    write_sample(&w);
    CHECK_INT(aps_json_writer_finish(&w, NULL), APS_OK);
    CHECK(out_is(&w, sample));
    CHECK_INT(aps_json_validate(aps_json_writer_data(&w), aps_json_writer_len(&w), NULL, NULL), APS_OK);
    /* Reset keeps the buffer and writes the same again. */
    aps_json_writer_reset(&w);
    write_sample(&w);
    CHECK(out_is(&w, sample));
    /* Out-of-order calls stick as APS_E_STATE. */
    aps_json_writer_reset(&w);
    aps_json_write_object_begin(&w);
    aps_json_write_int64(&w, 1);
    aps_json_write_key(&w, "a", 1);
    CHECK_INT(aps_json_writer_status(&w), APS_E_STATE);
    CHECK_INT(aps_json_writer_finish(&w, NULL), APS_E_STATE);
    aps_json_writer_reset(&w);
    aps_json_write_array_begin(&w);
    CHECK_INT(aps_json_writer_finish(&w, NULL), APS_E_STATE);
    aps_json_writer_reset(&w);
    CHECK_INT(aps_json_writer_finish(&w, NULL), APS_E_STATE);
    aps_json_writer_reset(&w);
    aps_json_write_null(&w);
    aps_json_write_null(&w);
    CHECK_INT(aps_json_writer_status(&w), APS_E_STATE);
    aps_json_writer_reset(&w);
    aps_json_write_array_begin(&w);
    aps_json_write_object_end(&w);
    CHECK_INT(aps_json_writer_status(&w), APS_E_STATE);
    aps_json_writer_reset(&w);
    aps_json_write_double(&w, NAN);
    CHECK_INT(aps_json_writer_status(&w), APS_E_ARGUMENT);
    aps_json_writer_reset(&w);
    aps_json_write_double(&w, -INFINITY);
    CHECK_INT(aps_json_writer_status(&w), APS_E_ARGUMENT);
    aps_json_writer_deinit(&w);
}

static void test_escaping(void)
{
    aps_json_writer w;
    char in[40];
    int i;
    aps_json_writer_init(&w, NULL);
    aps_json_write_string(&w, "a\"b\\c/d\b\f\n\r\t\x01\x1f\x7f caf\xC3\xA9 \xF0\x9F\x98\x80", 26);
    CHECK(out_is(&w, "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0001\\u001f\x7f caf\xC3\xA9 \xF0\x9F\x98\x80\""));
    aps_json_writer_reset(&w);
    aps_json_write_string(&w, "\0x", 2);
    CHECK(out_is(&w, "\"\\u0000x\""));
    /* Every control byte at every offset in a word, round-tripped through the reader. */
    for (i = 0; i < 32; i++) {
        aps_arena a;
        aps_json_reader r;
        aps_slice s;
        int k;
        for (k = 0; k < 20; k++) {
            memset(in, 'x', sizeof in);
            in[k] = (char)i;
            aps_json_writer_reset(&w);
            aps_json_write_string(&w, in, 24);
            aps_arena_init(&a, NULL);
            aps_json_reader_init(&r, aps_json_writer_data(&w), aps_json_writer_len(&w), &a, NULL);
            CHECK_INT(aps_json_read_string(&r, &s, NULL), APS_OK);
            CHECK(s.len == 24 && memcmp(s.ptr, in, 24) == 0);
            aps_arena_deinit(&a);
        }
    }
    aps_json_writer_deinit(&w);
}

/* s escaped as the writer must: '"', '\\' and control bytes, nothing else. */
static size_t escape_ref(char *out, const char *s, size_t len)
{
    size_t i, n = 0;
    out[n++] = '"';
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char named = 0;
        switch (c) {
        case '"': named = '"'; break;
        case '\\': named = '\\'; break;
        case '\b': named = 'b'; break;
        case '\f': named = 'f'; break;
        case '\n': named = 'n'; break;
        case '\r': named = 'r'; break;
        case '\t': named = 't'; break;
        default: break;
        }
        if (named != 0) {
            out[n++] = '\\';
            out[n++] = named;
        } else if (c < 0x20) {
            n += (size_t)sprintf(out + n, "\\u%04x", c);
        } else {
            out[n++] = (char)c;
        }
    }
    out[n++] = '"';
    return n;
}

/*
 * Strings and member names of every length around the word sizes the writer
 * scans by (4, 8, 16 bytes and more), plain or with one byte that needs
 * escaping (or one that does not: DEL, UTF-8) at every position.
 */
static void test_escaping_positions(void)
{
    static const unsigned char specials[] = { '"', '\\', 0, 0x01, '\b', '\t', '\n', 0x1f, 0x20, 0x7f, 0x80, 0xff };
    aps_json_writer w;
    char in[48], want[48 * 6 + 8];
    size_t len, pos, k, n;
    aps_json_writer_init(&w, NULL);
    for (len = 0; len <= 40; len++) {
        for (k = 0; k <= sizeof specials; k++) {
            for (pos = 0; pos < (len > 0 ? len : 1); pos++) {
                memset(in, 'a' + (int)(len % 26), sizeof in);
                if (k < sizeof specials && len > 0)
                    in[pos] = (char)specials[k];
                n = escape_ref(want, in, len);
                aps_json_writer_reset(&w);
                aps_json_write_string(&w, in, len);
                CHECK(aps_json_writer_len(&w) == n && memcmp(aps_json_writer_data(&w), want, n) == 0);
                /* The same as a member name, first and after a comma. */
                aps_json_writer_reset(&w);
                aps_json_write_object_begin(&w);
                aps_json_write_key(&w, in, len);
                aps_json_write_null(&w);
                aps_json_write_key(&w, in, len);
                aps_json_write_int64(&w, 1);
                aps_json_write_object_end(&w);
                CHECK_INT(aps_json_writer_finish(&w, NULL), APS_OK);
                CHECK(aps_json_writer_len(&w) == 2 * n + 10);
                CHECK(memcmp(aps_json_writer_data(&w), "{", 1) == 0);
                CHECK(memcmp(aps_json_writer_data(&w) + 1, want, n) == 0);
                CHECK(memcmp(aps_json_writer_data(&w) + 1 + n, ":null,", 6) == 0);
                CHECK(memcmp(aps_json_writer_data(&w) + 7 + n, want, n) == 0);
                CHECK(memcmp(aps_json_writer_data(&w) + 7 + 2 * n, ":1}", 3) == 0);
            }
        }
    }
    aps_json_writer_deinit(&w);
}

/* Integers at every digit count, against printf. */
static void test_integers(void)
{
    aps_json_writer w;
    char want[32];
    uint64_t p = 1;
    int d, delta;
    aps_json_writer_init(&w, NULL);
    for (d = 0; d < 20; d++, p *= 10) {
        for (delta = -1; delta <= 1; delta++) {
            uint64_t u = p + (uint64_t)(int64_t)delta;
            int64_t i = (int64_t)u;
            aps_json_writer_reset(&w);
            aps_json_write_uint64(&w, u);
            snprintf(want, sizeof want, "%llu", (unsigned long long)u);
            CHECK(out_is(&w, want));
            aps_json_writer_reset(&w);
            aps_json_write_int64(&w, -i);
            snprintf(want, sizeof want, "%lld", (long long)-i);
            CHECK(out_is(&w, want));
        }
    }
    aps_json_writer_reset(&w);
    aps_json_write_int64(&w, INT64_MAX);
    CHECK(out_is(&w, "9223372036854775807"));
    aps_json_writer_deinit(&w);
}

/* Raw values: compact ones copied whole, whitespace between tokens dropped, strings kept. */
static void test_raw(void)
{
    static const char *const cases[][2] = {
        { "{\"a\":[1,2,{\"b\":null}],\"c\":\"x y\"}", "{\"a\":[1,2,{\"b\":null}],\"c\":\"x y\"}" },
        { "{ \"a\" :\t[ 1 ,\r\n2 ] }", "{\"a\":[1,2]}" },
        { "[\"a \\\" b\", \"\\\\\", \" \" , \"\\\\\\\" \"]", "[\"a \\\" b\",\"\\\\\",\" \",\"\\\\\\\" \"]" },
        { "\"a long string with spaces, well over sixteen bytes \\\" and an escaped quote\"",
          "\"a long string with spaces, well over sixteen bytes \\\" and an escaped quote\"" },
        { "[\"0123456789abcdef0123456789\"   ,   \"0123456789abcdef\\\\\"  ]",
          "[\"0123456789abcdef0123456789\",\"0123456789abcdef\\\\\"]" },
        { "[1,2, 3,4,5]", "[1,2,3,4,5]" },
        { "[1,2,3,4,5,6,7,8,9,10,11, 12]", "[1,2,3,4,5,6,7,8,9,10,11,12]" },
        { "12", "12" },
    };
    size_t i, cap;
    char buf[128];
    aps_json_writer w;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aps_json_raw raw;
        size_t want = strlen(cases[i][1]);
        raw.ptr = cases[i][0];
        raw.len = strlen(cases[i][0]);
        aps_json_writer_init(&w, NULL);
        aps_json_write_raw(&w, raw);
        CHECK_INT(aps_json_writer_finish(&w, NULL), APS_OK);
        CHECK(out_is(&w, cases[i][1]));
        aps_json_writer_deinit(&w);
        /* A caller-owned buffer takes the compact form even when the raw text is longer. */
        for (cap = 0; cap <= want; cap++) {
            aps_json_writer_init_fixed(&w, buf, cap);
            aps_json_write_raw(&w, raw);
            CHECK_INT(aps_json_writer_status(&w), cap < want ? APS_E_LIMIT : APS_OK);
            CHECK(aps_json_writer_len(&w) <= cap);
        }
        CHECK(out_is(&w, cases[i][1]));
    }
}

/* A caller-owned buffer that runs out inside or right at the end of a member name. */
static void test_fixed_names(void)
{
    static const char *const names[] = { "", "a", "abc", "abcd", "abcdefg", "abcdefgh", "abcdefghijklmnop",
                                         "abcdefghijklmnopq", "a\"b", "\x01", "0123456789abcde\n" };
    char buf[512], want[512];
    size_t i, cap, n = 0;
    aps_json_writer w;
    want[n++] = '{';
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (i > 0)
            want[n++] = ',';
        n += escape_ref(want + n, names[i], strlen(names[i]));
        n += (size_t)sprintf(want + n, ":%u", (unsigned)i);
    }
    want[n++] = '}';
    want[n] = '\0';
    for (cap = 0; cap <= n; cap++) {
        aps_json_writer_init_fixed(&w, buf, cap);
        aps_json_write_object_begin(&w);
        for (i = 0; i < sizeof names / sizeof names[0]; i++) {
            aps_json_write_key(&w, names[i], strlen(names[i]));
            aps_json_write_uint64(&w, i);
        }
        aps_json_write_object_end(&w);
        CHECK_INT(aps_json_writer_status(&w), cap < n ? APS_E_LIMIT : APS_OK);
        CHECK(aps_json_writer_len(&w) <= cap);
    }
    CHECK_INT(aps_json_writer_finish(&w, NULL), APS_OK);
    CHECK(out_is(&w, want));
}

static void check_double(aps_json_writer *w, double v)
{
    aps_arena a;
    aps_json_reader r;
    double back = 0;
    aps_json_writer_reset(w);
    aps_json_write_double(w, v);
    aps_arena_init(&a, NULL);
    aps_json_reader_init(&r, aps_json_writer_data(w), aps_json_writer_len(w), &a, NULL);
    CHECK_INT(aps_json_read_double(&r, &back, NULL), APS_OK);
    CHECK_INT(aps_json_reader_finish(&r, NULL), APS_OK);
    CHECK(memcmp(&back, &v, sizeof v) == 0 || (v == 0 && back == 0));
    CHECK(aps_json_writer_len(w) <= 24);
    aps_arena_deinit(&a);
}

static void test_doubles(void)
{
    aps_json_writer w;
    uint64_t state = 12345;
    int i;
    aps_json_writer_init(&w, NULL);
    aps_json_write_double(&w, 0.1);
    CHECK(out_is(&w, "0.1"));
    aps_json_writer_reset(&w);
    aps_json_write_double(&w, 1e300);
    CHECK(out_is(&w, "1e+300"));
    aps_json_writer_reset(&w);
    aps_json_write_double(&w, 2.5);
    CHECK(out_is(&w, "2.5"));
    check_double(&w, 5e-324);
    check_double(&w, 1.7976931348623157e308);
    check_double(&w, -0.0);
    check_double(&w, 0.30000000000000004);
    /* Random bit patterns cover every exponent; random short decimals the usual values. */
    for (i = 0; i < 20000; i++) {
        uint64_t z = test_rand(&state);
        double v;
        memcpy(&v, &z, sizeof v);
        if (isfinite(v))
            check_double(&w, v);
        check_double(&w, (double)(z % 100000) / 1000.0);
    }
    aps_json_writer_deinit(&w);
}

static void test_fixed(void)
{
    char buf[200];
    size_t cap;
    aps_json_writer w;
    /* Too small by one byte, then exactly right. */
    for (cap = 0; cap <= sizeof sample - 1; cap++) {
        aps_json_writer_init_fixed(&w, buf, cap);
        write_sample(&w);
        CHECK_INT(aps_json_writer_status(&w), cap < sizeof sample - 1 ? APS_E_LIMIT : APS_OK);
        CHECK(aps_json_writer_len(&w) <= cap);
    }
    CHECK(out_is(&w, sample));
}

static void test_alloc_failures(void)
{
    long n;
    int done = 0;
    for (n = 0; !done; n++) {
        test_alloc f;
        aps_allocator al;
        aps_json_writer w;
        int i;
        test_alloc_init(&f, n, 0);
        al = test_alloc_hooks(&f);
        aps_json_writer_init(&w, &al);
        aps_json_write_array_begin(&w);
        for (i = 0; i < 300; i++)
            write_sample(&w);
        aps_json_write_array_end(&w);
        if (f.calls <= n) {
            done = 1;
            CHECK_INT(aps_json_writer_finish(&w, NULL), APS_OK);
        } else {
            CHECK_INT(aps_json_writer_finish(&w, NULL), APS_E_NOMEM);
        }
        aps_json_writer_deinit(&w);
        CHECK_INT(f.live, 0);
    }
    CHECK(n > 3);
}

int main(void)
{
    test_structure();
    test_escaping();
    test_escaping_positions();
    test_integers();
    test_raw();
    test_doubles();
    test_fixed();
    test_fixed_names();
    test_alloc_failures();
    return test_report();
}
