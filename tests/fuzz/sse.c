/*
 * sse.c - fuzz target for the SSE parser and encoder. The first byte picks
 * the options; the rest is the stream. Checks that parsing the stream whole,
 * in two pieces (cut at a point the input chooses) and byte by byte reports
 * the same events and errors, and that each event encoded again parses back
 * to itself. Byte by byte, the line scan (lines.h) can prove no character
 * past ASCII (each push cuts it), so every such value gets the exact UTF-8
 * check: the whole parse's vector pass and proof are checked against it.
 * And each vector variant of the line pass the CPU has is compared with
 * its byte loop on the input's blocks.
 */
#include "aps/sse.h"
#include "../test_util.h"
#include "lines.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct summary {
    uint64_t hash; /* FNV-1a over everything reported */
    size_t events, errors;
    const aps_sse_options *opts;
} summary;

typedef struct echo {
    const aps_sse_event *want;
    int seen, same;
} echo;

static aps_status echo_event(void *user, const aps_sse_event *ev)
{
    echo *e = user;
    e->seen++;
    e->same = ev->type_len == e->want->type_len &&
              memcmp(ev->type, e->want->type, ev->type_len) == 0 &&
              ev->data_len == e->want->data_len &&
              (ev->data_len == 0 || memcmp(ev->data, e->want->data, ev->data_len) == 0) &&
              ev->last_id_len == e->want->last_id_len &&
              memcmp(ev->last_id, e->want->last_id, ev->last_id_len) == 0;
    return APS_OK;
}

/* Encodes an event and parses it back: the fields must survive. */
static void round_trip(const aps_sse_event *ev, const aps_sse_options *opts)
{
    static char out[3 * 4096 + 1024], storage[4096];
    aps_sse_writer w;
    aps_sse_parser p;
    echo e = { 0, 0, 0 };
    e.want = ev;
    aps_sse_writer_init_buffer(&w, out, sizeof out);
    /* A type or id with NUL cannot be written (the parser can yield a type
     * with NUL; an id with NUL it ignores). */
    if (aps_sse_write_event(&w, ev->last_id, ev->last_id_len, ev->type, ev->type_len,
                            ev->data, ev->data_len, NULL) != APS_OK)
        return;
    aps_sse_parser_init(&p, storage, sizeof storage, opts, echo_event, NULL, &e);
    if (aps_sse_parser_push(&p, out, aps_sse_writer_length(&w), NULL) != APS_OK ||
        aps_sse_parser_finish(&p, NULL) != APS_OK || e.seen != 1 || !e.same)
        abort();
}

static aps_status on_event(void *user, const aps_sse_event *ev)
{
    summary *s = user;
    uint64_t nums[3];
    s->events++;
    s->hash = test_hash_mix(s->hash, ev->type, ev->type_len);
    s->hash = test_hash_mix(s->hash, ev->data, ev->data_len);
    s->hash = test_hash_mix(s->hash, ev->last_id, ev->last_id_len);
    nums[0] = (uint64_t)ev->retry;
    nums[1] = ev->offset;
    nums[2] = ev->data_offset;
    s->hash = test_hash_mix(s->hash, nums, sizeof nums);
    round_trip(ev, s->opts);
    return APS_OK;
}

static aps_status on_error(void *user, const aps_error *err)
{
    summary *s = user;
    uint64_t nums[2];
    s->errors++;
    nums[0] = (uint64_t)err->code;
    nums[1] = err->offset;
    s->hash = test_hash_mix(s->hash, nums, sizeof nums);
    s->hash = test_hash_mix(s->hash, err->message, strlen(err->message));
    return APS_OK;
}

/* Parses in[0..len) in two pushes cut at `cut`, or one byte a push when `bytewise`. */
static summary parse(const uint8_t *in, size_t len, size_t cut, size_t cap,
                     const aps_sse_options *opts, int bytewise)
{
    static char storage[4096];
    aps_sse_parser p;
    summary s = { TEST_HASH_INIT, 0, 0, NULL };
    size_t i;
    s.opts = opts;
    aps_sse_parser_init(&p, storage, cap, opts, on_event, on_error, &s);
    if (bytewise) {
        for (i = 0; i < len; i++)
            if (aps_sse_parser_push(&p, in + i, 1, NULL) != APS_OK)
                abort();
    } else if (aps_sse_parser_push(&p, in, cut, NULL) != APS_OK ||
               aps_sse_parser_push(&p, in + cut, len - cut, NULL) != APS_OK) {
        abort();
    }
    if (aps_sse_parser_finish(&p, NULL) != APS_OK)
        abort();
    return s;
}

/* Line pass variant `path` on blocks at p, into the outputs; 0 when this CPU or build has none such. */
static int index_variant(int path, const char *p, size_t blocks, uint16_t *ends, uint64_t *high, uint64_t *past,
                         unsigned *count)
{
    switch (path) {
    case 0:
        *count = aps_lines_index(p, blocks, 0, ends, high, past); /* the one chosen at run time */
        return 1;
#if APS_LINES_HAVE_AVX2
    case 1:
        *count = aps_lines_index_sse2(p, blocks, 0, ends, high, past);
        return 1;
    case 2:
        if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi"))
            return 0;
        *count = aps_lines_index_avx2(p, blocks, 0, ends, high, past);
        return 1;
    case 3:
        if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("bmi"))
            return 0;
        *count = aps_lines_index_avx512(p, blocks, 0, ends, high, past);
        return 1;
#endif
    default:
        return 0;
    }
}

/*
 * Each vector variant of the line pass the CPU has, against the byte loop,
 * on the input's whole 64-byte blocks (the parses above run only the one
 * chosen at run time).
 */
static void same_index(const uint8_t *in, size_t len)
{
    uint16_t want[APS_LINES_CHUNK + 4], got[APS_LINES_CHUNK + 4];
    uint64_t want_high[APS_LINES_BLOCKS], got_high[APS_LINES_BLOCKS];
    uint64_t want_past, got_past;
    size_t at, blocks;
    unsigned n, m;
    int path;
    for (at = 0; len - at >= APS_LINES_BLOCK; at += blocks * APS_LINES_BLOCK) {
        const char *p = (const char *)in + at;
        blocks = (len - at) / APS_LINES_BLOCK;
        blocks = blocks < APS_LINES_BLOCKS ? blocks : APS_LINES_BLOCKS;
        n = aps_lines_index_bytes(p, blocks, 0, want, want_high, &want_past);
        for (path = 0; path < 4; path++) {
            if (!index_variant(path, p, blocks, got, got_high, &got_past, &m))
                continue;
            if (m != n || got_past != want_past || memcmp(got, want, n * sizeof *got) != 0 ||
                memcmp(got_high, want_high, blocks * sizeof *got_high) != 0)
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aps_sse_options opts = { 0 };
    size_t cap, cut;
    summary whole, split, bytes;
    if (size < 1)
        return 0;
    /* Small storage makes the overflow and resynchronisation paths common. */
    cap = (data[0] & 0x7) == 0 ? 4096 : (size_t)(data[0] & 0x7) * 5;
    opts.skip_utf8_check = (data[0] & 0x8) != 0;
    data++;
    size--;
    cut = size > 0 ? (size_t)(data[size / 2] * 31u + data[0]) % (size + 1) : 0;
    whole = parse(data, size, 0, cap, &opts, 0);
    split = parse(data, size, cut, cap, &opts, 0);
    bytes = parse(data, size, 0, cap, &opts, 1);
    if (whole.hash != split.hash || whole.events != split.events ||
        whole.errors != split.errors || whole.hash != bytes.hash ||
        whole.events != bytes.events || whole.errors != bytes.errors)
        abort();
    same_index(data, size);
    return 0;
}
