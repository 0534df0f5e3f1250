/*
 * test_libcbor.c - our CBOR reader and writer against libcbor (Debian's
 * libcbor-dev), an independent implementation, on random items both ways:
 *
 *   - items our writer encodes, libcbor loads whole and serializes back to
 *     the same bytes;
 *   - items libcbor builds and serializes, our reader accepts and copies
 *     (reader -> writer) to the same bytes.
 *
 * Both sides write preferred serialization (the shortest head, the
 * narrowest exact float), so equal bytes mean equal values. Seeded: a
 * failure prints the seed and the item's bytes.
 *
 * libcbor 0.8 (Debian 12's) refuses as malformed the tag numbers 6 to 20
 * written in the initial byte (0xc6..0xd4), which RFC 8949 §3.4 leaves
 * unassigned but well-formed; no random tag takes them (test_cbor.c reads
 * them), and no simple value 0..19 is generated, for the same reason.
 */
#include "aps/cbor.h"
#include "cbor_copy.h"

#include "../test.h"

#include <cbor.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static uint64_t below(uint64_t n)
{
    return rnd() % n;
}

/* An unsigned argument of a random width, edges included. */
static uint64_t rnd_arg(void)
{
    static const uint64_t edges[] = { 0, 23, 24, 255, 256, 65535, 65536, 4294967295ull,
                                      4294967296ull, UINT64_MAX };
    switch (below(4)) {
    case 0: return edges[below(sizeof edges / sizeof edges[0])];
    case 1: return below(24);
    case 2: return below(70000);
    default: return rnd() >> below(64);
    }
}

static double rnd_float(void)
{
    static const double specials[] = { 0.0, -0.0, 1.0, 1.5, 65504.0, 100000.0, 0.1, 1e300,
                                       5.960464477539063e-8, 3.4028234663852886e+38 };
    switch (below(3)) {
    case 0: return specials[below(sizeof specials / sizeof specials[0])];
    case 1: return (double)(float)((double)(int64_t)rnd() / 1e6); /* a single */
    default: return (double)(int64_t)rnd() / 1e9;
    }
}

static const char *const texts[] = { "", "a", "IETF", "\xc3\xbc", "\xe6\xb0\xb4",
                                     "\xf0\x90\x85\x91", "text-delta", "a longer text string of 32 bytes!" };

/* A tag number, never one libcbor 0.8 refuses (see the top). */
static uint64_t rnd_tag(void)
{
    uint64_t t = rnd_arg();
    return t >= 6 && t <= 20 ? t + 15 : t;
}

/* Writes a random item of at most `depth` levels with our writer. */
static void write_random(aps_cbor_writer *w, int depth)
{
    uint64_t i, n;
    switch (below(depth > 0 ? 12 : 9)) {
    case 0: aps_cbor_write_uint(w, rnd_arg()); break;
    case 1: aps_cbor_write_negint(w, rnd_arg()); break;
    case 2: {
        uint8_t b[40];
        n = below(sizeof b);
        for (i = 0; i < n; i++)
            b[i] = (uint8_t)rnd();
        aps_cbor_write_bytes(w, b, (size_t)n);
        break;
    }
    case 3: {
        const char *t = texts[below(sizeof texts / sizeof texts[0])];
        aps_cbor_write_text(w, t, strlen(t));
        break;
    }
    case 4: aps_cbor_write_float(w, rnd_float()); break;
    case 5: aps_cbor_write_bool(w, (int)below(2)); break;
    case 6: aps_cbor_write_null(w); break;
    case 7: aps_cbor_write_undefined(w); break;
    case 8: aps_cbor_write_uint(w, below(100)); break;
    case 9:
        n = below(6);
        aps_cbor_write_array_begin(w, n);
        for (i = 0; i < n; i++)
            write_random(w, depth - 1);
        aps_cbor_write_array_end(w);
        break;
    case 10:
        n = below(6);
        aps_cbor_write_map_begin(w, n);
        for (i = 0; i < n; i++) { /* distinct keys: integers and texts by index */
            if (i % 2)
                aps_cbor_write_uint(w, i * 1000);
            else {
                char k[8];
                k[0] = 'k';
                k[1] = (char)('0' + i);
                aps_cbor_write_text(w, k, 2);
            }
            write_random(w, depth - 1);
        }
        aps_cbor_write_map_end(w);
        break;
    default:
        aps_cbor_write_tag(w, rnd_tag());
        write_random(w, depth - 1);
    }
}

/* The libcbor item of a preferred-width unsigned argument. */
static cbor_item_t *lib_uint(uint64_t v)
{
    if (v <= 0xff)
        return cbor_build_uint8((uint8_t)v);
    if (v <= 0xffff)
        return cbor_build_uint16((uint16_t)v);
    if (v <= 0xffffffffull)
        return cbor_build_uint32((uint32_t)v);
    return cbor_build_uint64(v);
}

static cbor_item_t *lib_negint(uint64_t v)
{
    if (v <= 0xff)
        return cbor_build_negint8((uint8_t)v);
    if (v <= 0xffff)
        return cbor_build_negint16((uint16_t)v);
    if (v <= 0xffffffffull)
        return cbor_build_negint32((uint32_t)v);
    return cbor_build_negint64(v);
}

/* A float in its narrowest exact width, as preferred serialization writes it. */
static cbor_item_t *lib_float(double v)
{
    uint8_t b[9];
    aps_cbor_writer w;
    aps_cbor_writer_init_fixed(&w, b, sizeof b, NULL);
    aps_cbor_write_float(&w, v); /* asks ours for the width only */
    if (aps_cbor_writer_len(&w) == 3)
        return cbor_build_float2((float)v);
    if (aps_cbor_writer_len(&w) == 5)
        return cbor_build_float4((float)v);
    return cbor_build_float8(v);
}

/* Builds a random item with libcbor (NULL when it runs out of memory). */
static cbor_item_t *build_random(int depth)
{
    uint64_t i, n;
    cbor_item_t *item;
    switch (below(depth > 0 ? 11 : 8)) {
    case 0: return lib_uint(rnd_arg());
    case 1: return lib_negint(rnd_arg());
    case 2: {
        uint8_t b[40];
        n = below(sizeof b);
        for (i = 0; i < n; i++)
            b[i] = (uint8_t)rnd();
        return cbor_build_bytestring(b, (size_t)n);
    }
    case 3: {
        const char *t = texts[below(sizeof texts / sizeof texts[0])];
        return cbor_build_stringn(t, strlen(t));
    }
    case 4: return lib_float(rnd_float());
    case 5: return cbor_build_bool(below(2) != 0);
    case 6: return cbor_new_null();
    case 7: return cbor_new_undef();
    case 8:
        n = below(6);
        item = cbor_new_definite_array((size_t)n);
        for (i = 0; i < n; i++) {
            cbor_item_t *e = build_random(depth - 1);
            if (e == NULL || !cbor_array_push(item, cbor_move(e)))
                return NULL;
        }
        return item;
    case 9:
        n = below(6);
        item = cbor_new_definite_map((size_t)n);
        for (i = 0; i < n; i++) {
            struct cbor_pair pair;
            char k[2];
            k[0] = 'k';
            k[1] = (char)('0' + i);
            pair.key = cbor_move(i % 2 ? lib_uint(i * 1000) : cbor_build_stringn(k, 2));
            pair.value = cbor_move(build_random(depth - 1));
            if (pair.value == NULL || !cbor_map_add(item, pair))
                return NULL;
        }
        return item;
    default:
        item = build_random(depth - 1);
        return item != NULL ? cbor_build_tag(rnd_tag(), cbor_move(item)) : NULL;
    }
}

static void dump(const char *what, const uint8_t *p, size_t n)
{
    size_t i;
    fprintf(stderr, "%s (seed %llu): ", what, (unsigned long long)rng_state);
    for (i = 0; i < n; i++)
        fprintf(stderr, "%02x", p[i]);
    fprintf(stderr, "\n");
}

/* Ours -> libcbor: loaded whole, serialized back to the same bytes. */
static void test_ours_to_libcbor(int rounds)
{
    int k, bad = 0;
    for (k = 0; k < rounds; k++) {
        aps_cbor_writer w;
        struct cbor_load_result res;
        cbor_item_t *item;
        unsigned char *out = NULL;
        size_t cap = 0, len;
        aps_cbor_writer_init(&w, NULL);
        write_random(&w, 4);
        if (aps_cbor_writer_finish(&w, NULL) != APS_OK) {
            bad++;
            aps_cbor_writer_deinit(&w);
            continue;
        }
        item = cbor_load(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w), &res);
        len = item != NULL ? cbor_serialize_alloc(item, &out, &cap) : 0;
        if (item == NULL || res.error.code != CBOR_ERR_NONE || res.read != aps_cbor_writer_len(&w) ||
            len != aps_cbor_writer_len(&w) || memcmp(out, aps_cbor_writer_data(&w), len) != 0) {
            if (bad++ < 5)
                dump("ours, not libcbor's", aps_cbor_writer_data(&w), aps_cbor_writer_len(&w));
        }
        free(out);
        if (item != NULL)
            cbor_decref(&item);
        aps_cbor_writer_deinit(&w);
    }
    CHECK_INT(bad, 0);
}

/* libcbor -> ours: accepted, and copied to the same bytes. */
static void test_libcbor_to_ours(int rounds)
{
    int k, bad = 0;
    for (k = 0; k < rounds; k++) {
        cbor_item_t *item = build_random(4);
        unsigned char *in = NULL;
        size_t cap = 0, len;
        aps_arena arena;
        aps_cbor_reader r;
        aps_cbor_writer w;
        aps_error err = APS_ERROR_INIT;
        if (item == NULL) {
            bad++;
            continue;
        }
        len = cbor_serialize_alloc(item, &in, &cap);
        aps_arena_init(&arena, NULL);
        aps_cbor_reader_init(&r, in, len, &arena, NULL);
        aps_cbor_writer_init(&w, NULL);
        if (len == 0 || aps_cbor_validate(in, len, NULL, &err) != APS_OK || cbor_copy_item(&r, &w, &err) != APS_OK ||
            aps_cbor_reader_finish(&r, &err) != APS_OK || aps_cbor_writer_finish(&w, &err) != APS_OK ||
            aps_cbor_writer_len(&w) != len || memcmp(aps_cbor_writer_data(&w), in, len) != 0) {
            if (bad++ < 5) {
                dump("libcbor's, not ours", in, len);
                fprintf(stderr, "  %s at %zu %s\n", err.message, err.offset, err.pointer);
            }
        }
        aps_cbor_writer_deinit(&w);
        aps_arena_deinit(&arena);
        free(in);
        cbor_decref(&item);
    }
    CHECK_INT(bad, 0);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5000;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 0x9E3779B97F4A7C15ull;
    test_ours_to_libcbor(rounds);
    test_libcbor_to_ours(rounds);
    return test_report();
}
