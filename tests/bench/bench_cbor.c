/*
 * bench_cbor.c - the protocol's Message type as CBOR (issue 44) on the
 * codec's realistic traffic (traffic.h), converted to CBOR once, untimed, by
 * our encoder, against libcbor (Debian's libcbor-dev) on the same bytes:
 *
 *   decode+validate   aps_schema_decode_cbor(&ap_message_type), strict, the
 *                     arena reset before each message: bytes to a value
 *                     checked against every constraint of the schema
 *   libcbor load      cbor_load + cbor_decref: bytes to libcbor's generic
 *                     tree, well-formedness only, no schema
 *   encode            aps_schema_encode_cbor of values decoded untimed
 *                     beforehand (BATCH at a time), into one reused writer,
 *                     checked as the default is; and trusted (no check)
 *   libcbor serialize cbor_serialize of trees loaded untimed beforehand
 *                     (BATCH at a time) into one reused buffer
 *   JSON decode       ap_message_decode_opts of the same messages as JSON:
 *                     what the same values cost in the other format
 *
 * MB/s divide the CBOR bytes (the JSON row: the JSON bytes) by the time;
 * the ratio rows divide message rates. Each figure is the best of
 * cfg->repeat runs.
 */
#include "bench.h"
#include "traffic.h"

#include "ap.h"
#include "aps/cbor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBCBOR
#include <cbor.h>
#endif

int bench_cbor(const bench_config *cfg);

#define BATCH 4096

typedef struct cbor_bench {
    const traffic_corpus *json;
    uint8_t *data;        /* the messages as CBOR, one after the other */
    size_t *start;        /* count + 1 offsets */
    size_t count, bytes;
    aps_arena arena;
    aps_decode_options dopt;
    aps_cbor_writer writer;
    size_t sink;
    int failed;
} cbor_bench;

/* The corpus as CBOR, by our encoder; 0 on failure. */
static int convert(cbor_bench *b)
{
    size_t i, len;
    aps_cbor_writer w;
    aps_cbor_writer_init(&w, NULL);
    b->count = b->json->count;
    b->start = (size_t *)malloc((b->count + 1) * sizeof *b->start);
    if (b->start == NULL)
        return 0;
    for (i = 0; i < b->count; i++) {
        const char *s = traffic_line(b->json, i, &len);
        ap_message_t m;
        b->start[i] = aps_cbor_writer_len(&w);
        aps_arena_reset(&b->arena);
        if (ap_message_decode(s, len, &b->arena, &m, NULL) != APS_OK ||
            aps_schema_encode_cbor(&ap_message_type, &m, &w, NULL, NULL) != APS_OK ||
            aps_cbor_writer_finish(&w, NULL) != APS_OK) {
            aps_cbor_writer_deinit(&w);
            return 0;
        }
        aps_cbor_writer_next(&w);
    }
    b->bytes = aps_cbor_writer_len(&w);
    b->start[b->count] = b->bytes;
    b->data = (uint8_t *)malloc(b->bytes);
    if (b->data != NULL)
        memcpy(b->data, aps_cbor_writer_data(&w), b->bytes);
    aps_cbor_writer_deinit(&w);
    return b->data != NULL;
}

static void run_decode(cbor_bench *b)
{
    size_t i;
    ap_message_t m;
    for (i = 0; i < b->count; i++) {
        aps_arena_reset(&b->arena);
        if (aps_schema_decode_cbor(&ap_message_type, b->data + b->start[i], b->start[i + 1] - b->start[i],
                                   &b->arena, &m, &b->dopt, NULL) != APS_OK)
            b->failed = 1;
    }
}

static void run_json_decode(cbor_bench *b)
{
    size_t i, len;
    ap_message_t m;
    for (i = 0; i < b->count; i++) {
        const char *s = traffic_line(b->json, i, &len);
        aps_arena_reset(&b->arena);
        if (ap_message_decode_opts(s, len, &b->arena, &m, &b->dopt, NULL) != APS_OK)
            b->failed = 1;
    }
}

/* Encodes the corpus batch by batch, values decoded untimed; returns the timed seconds. */
static double run_encode(cbor_bench *b, bool trusted)
{
    static ap_message_t values[BATCH];
    aps_encode_options o;
    double total = 0;
    size_t at, i;
    memset(&o, 0, sizeof o);
    o.trusted = trusted;
    for (at = 0; at < b->count; at += BATCH) {
        size_t n = b->count - at < BATCH ? b->count - at : BATCH;
        double t0;
        aps_arena_reset(&b->arena);
        for (i = 0; i < n; i++)
            if (aps_schema_decode_cbor(&ap_message_type, b->data + b->start[at + i],
                                       b->start[at + i + 1] - b->start[at + i], &b->arena, &values[i], NULL,
                                       NULL) != APS_OK)
                b->failed = 1;
        t0 = bench_now();
        for (i = 0; i < n; i++) {
            aps_cbor_writer_reset(&b->writer);
            if (aps_schema_encode_cbor(&ap_message_type, &values[i], &b->writer, &o, NULL) != APS_OK)
                b->failed = 1;
            b->sink += aps_cbor_writer_len(&b->writer);
        }
        total += bench_now() - t0;
    }
    return total;
}

#ifdef HAVE_LIBCBOR
static void run_libcbor_load(cbor_bench *b)
{
    size_t i;
    for (i = 0; i < b->count; i++) {
        struct cbor_load_result res;
        cbor_item_t *item = cbor_load(b->data + b->start[i], b->start[i + 1] - b->start[i], &res);
        if (item == NULL || res.error.code != CBOR_ERR_NONE) {
            b->failed = 1;
            continue;
        }
        cbor_decref(&item);
    }
}

static double run_libcbor_serialize(cbor_bench *b)
{
    static cbor_item_t *items[BATCH];
    static unsigned char out[1 << 20];
    double total = 0;
    size_t at, i;
    for (at = 0; at < b->count; at += BATCH) {
        size_t n = b->count - at < BATCH ? b->count - at : BATCH;
        double t0;
        for (i = 0; i < n; i++) {
            struct cbor_load_result res;
            items[i] = cbor_load(b->data + b->start[at + i], b->start[at + i + 1] - b->start[at + i], &res);
            if (items[i] == NULL)
                b->failed = 1;
        }
        t0 = bench_now();
        for (i = 0; i < n; i++) {
            size_t len = items[i] != NULL ? cbor_serialize(items[i], out, sizeof out) : 0;
            if (len == 0)
                b->failed = 1;
            b->sink += len;
        }
        total += bench_now() - t0;
        for (i = 0; i < n; i++)
            if (items[i] != NULL)
                cbor_decref(&items[i]);
    }
    return total;
}
#endif

static double best(cbor_bench *b, int repeat, void (*fn)(cbor_bench *))
{
    double t = 1e300;
    int k;
    for (k = 0; k < repeat; k++) {
        double t0 = bench_now(), dt;
        fn(b);
        dt = bench_now() - t0;
        if (dt < t)
            t = dt;
    }
    return t;
}

static double best_encode(cbor_bench *b, int repeat, bool trusted)
{
    double t = 1e300;
    int k;
    for (k = 0; k < repeat; k++) {
        double dt = run_encode(b, trusted);
        if (dt < t)
            t = dt;
    }
    return t;
}

static void row(const char *what, double secs, size_t bytes, size_t count)
{
    printf("%-34s %9.1f MB/s %12.0f msg/s\n", what, (double)bytes / secs / 1e6, (double)count / secs);
}

int bench_cbor(const bench_config *cfg)
{
    traffic_corpus json;
    cbor_bench b;
    double dec, enc, enc_trusted, jdec;
    int repeat = cfg->repeat > 0 ? cfg->repeat : 3;
    memset(&b, 0, sizeof b);
    /* a quarter of the codec's corpus: the CBOR rows are table-driven and slower */
    if (traffic_generate(cfg->corpus_bytes / 4, cfg->seed, &json) != 0) {
        fprintf(stderr, "cbor: corpus generation failed\n");
        return 1;
    }
    b.json = &json;
    b.dopt.strict = true;
    aps_arena_init(&b.arena, NULL);
    aps_cbor_writer_init(&b.writer, NULL);
    if (!convert(&b)) {
        fprintf(stderr, "cbor: converting the corpus to CBOR failed\n");
        aps_cbor_writer_deinit(&b.writer);
        aps_arena_deinit(&b.arena);
        free(b.start);
        traffic_free(&json);
        return 1;
    }
    printf("== cbor: %zu messages, %zu bytes of CBOR (%zu of JSON, %.2f), best of %d\n", b.count, b.bytes,
           json.len - json.count, (double)b.bytes / (double)(json.len - json.count), repeat);
    dec = best(&b, repeat, run_decode);
    row("CBOR decode+validate (Message)", dec, b.bytes, b.count);
    enc = best_encode(&b, repeat, false);
    row("CBOR encode (checked)", enc, b.bytes, b.count);
    enc_trusted = best_encode(&b, repeat, true);
    row("CBOR encode (trusted)", enc_trusted, b.bytes, b.count);
    jdec = best(&b, repeat, run_json_decode);
    row("JSON decode+validate, same values", jdec, json.len - json.count, b.count);
#ifdef HAVE_LIBCBOR
    {
        double load = best(&b, repeat, run_libcbor_load), ser = 1e300;
        int k;
        for (k = 0; k < repeat; k++) {
            double dt = run_libcbor_serialize(&b);
            if (dt < ser)
                ser = dt;
        }
        row("libcbor cbor_load+decref", load, b.bytes, b.count);
        row("libcbor cbor_serialize", ser, b.bytes, b.count);
        printf("%-34s %9.2fx\n", "ratio decode+validate/cbor_load", load / dec);
        printf("%-34s %9.2fx\n", "ratio encode checked/serialize", ser / enc);
        printf("%-34s %9.2fx\n", "ratio encode trusted/serialize", ser / enc_trusted);
    }
#else
    printf("libcbor: not found when ap-bench was built (Debian libcbor-dev): no baseline rows\n");
#endif
    printf("%-34s %9.2fx\n", "ratio CBOR/JSON decode (msg/s)", jdec / dec);
    if (b.failed)
        printf("cbor: FAILED: a message did not decode or encode\n");
    aps_cbor_writer_deinit(&b.writer);
    aps_arena_deinit(&b.arena);
    free(b.data);
    free(b.start);
    traffic_free(&json);
    return b.failed;
}
