/*
 * bench_size.c - what `cddlgen generate --size` costs in speed: the Message
 * codec of the committed bindings (generated/ap.c, prefix ap: straight-line
 * readers, validators and encoders) against the same schema generated with
 * --size (prefix apz, built into ap-bench by tests/bench/CMakeLists.txt:
 * descriptors only, the runtime's tables do everything), in one process on
 * the same corpora, so the ratios compare numbers measured together:
 *
 *   decode    PREFIX_message_decode_opts, strict, the arena reset before
 *             each message; the two bindings' runs alternate, best of
 *             cfg->repeat each
 *   encode    PREFIX_message_encode (checked, the default) of values
 *             decoded untimed beforehand, in batches of BATCH messages,
 *             each batch timed cfg->repeat times per binding, best kept
 *
 * on the codec corpus (traffic_generate) and on the state snapshots
 * (traffic_generate_snapshots, a quarter of the size). Before timing, every
 * message must get the same verdict from both and encode to the same bytes:
 * otherwise the area fails (the tests hold this too; here it guards the
 * figures).
 */
#include "bench.h"
#include "traffic.h"

#include "ap.h"
#include "apz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_size(const bench_config *cfg);

#define BATCH 4096

typedef struct size_bench {
    const traffic_corpus *c;
    size_t bytes; /* input bytes, newlines excluded */
    aps_arena arena;
    aps_decode_options dopt;
    size_t sink;
    int failed;
} size_bench;

static double decode_fast(size_bench *b)
{
    size_t i, len, ok = 0;
    ap_message_t m;
    double t0 = bench_now();
    for (i = 0; i < b->c->count; i++) {
        const char *s = traffic_line(b->c, i, &len);
        aps_arena_reset(&b->arena);
        ok += ap_message_decode_opts(s, len, &b->arena, &m, &b->dopt, NULL) == APS_OK;
    }
    b->sink += ok;
    return bench_now() - t0;
}

static double decode_size(size_bench *b)
{
    size_t i, len, ok = 0;
    apz_message_t m;
    double t0 = bench_now();
    for (i = 0; i < b->c->count; i++) {
        const char *s = traffic_line(b->c, i, &len);
        aps_arena_reset(&b->arena);
        ok += apz_message_decode_opts(s, len, &b->arena, &m, &b->dopt, NULL) == APS_OK;
    }
    b->sink += ok;
    return bench_now() - t0;
}

/* Same status, error and encoding from both bindings for every message (untimed). */
static void check_same(size_bench *b)
{
    size_t i, len;
    aps_json_writer wf, wz;
    aps_json_writer_init(&wf, NULL);
    aps_json_writer_init(&wz, NULL);
    for (i = 0; i < b->c->count && !b->failed; i++) {
        const char *s = traffic_line(b->c, i, &len);
        ap_message_t mf;
        apz_message_t mz;
        aps_error ef = APS_ERROR_INIT, ez = APS_ERROR_INIT;
        aps_status sf, sz;
        aps_arena_reset(&b->arena);
        aps_json_writer_reset(&wf);
        aps_json_writer_reset(&wz);
        sf = ap_message_decode_opts(s, len, &b->arena, &mf, &b->dopt, &ef);
        sz = apz_message_decode_opts(s, len, &b->arena, &mz, &b->dopt, &ez);
        if (sf != sz || ef.offset != ez.offset || strcmp(ef.pointer, ez.pointer) != 0 ||
            strcmp(ef.message, ez.message) != 0 ||
            (sf == APS_OK && (ap_message_encode(&mf, &wf, NULL) != APS_OK || apz_message_encode(&mz, &wz, NULL) != APS_OK ||
                              aps_json_writer_len(&wf) != aps_json_writer_len(&wz) ||
                              memcmp(aps_json_writer_data(&wf), aps_json_writer_data(&wz), aps_json_writer_len(&wf)) != 0))) {
            fprintf(stderr, "bench_size: message %zu: the fast and --size bindings differ\n", i);
            b->failed = 1;
        }
    }
    aps_json_writer_deinit(&wf);
    aps_json_writer_deinit(&wz);
}

/* Best of `repeat` timings of encoding msgs[0..n) with one binding; `z` picks apz. */
static double encode_batch(size_bench *b, aps_json_writer *w, const void *msgs, size_t n, int z, int repeat)
{
    double best = 1e300;
    int k;
    for (k = 0; k < repeat; k++) {
        double t0 = bench_now(), dt;
        size_t i;
        for (i = 0; i < n; i++) {
            aps_status st;
            aps_json_writer_reset(w);
            st = z ? apz_message_encode(&((const apz_message_t *)msgs)[i], w, NULL)
                   : ap_message_encode(&((const ap_message_t *)msgs)[i], w, NULL);
            if (st != APS_OK)
                b->failed = 1;
            b->sink += aps_json_writer_len(w);
        }
        dt = bench_now() - t0;
        if (dt < best)
            best = dt;
    }
    return best;
}

/* Total encode time of the corpus by each binding, batch by batch. */
static void encode_both(size_bench *b, int repeat, double *fast, double *size)
{
    ap_message_t *mf = (ap_message_t *)malloc(BATCH * sizeof *mf);
    apz_message_t *mz = (apz_message_t *)malloc(BATCH * sizeof *mz);
    aps_arena keep;
    aps_json_writer w;
    size_t first, i, len;
    *fast = *size = 0;
    aps_arena_init(&keep, NULL);
    aps_json_writer_init(&w, NULL);
    for (first = 0; mf != NULL && mz != NULL && first < b->c->count; first += BATCH) {
        size_t n = b->c->count - first < BATCH ? b->c->count - first : BATCH;
        aps_arena_reset(&keep);
        for (i = 0; i < n; i++) {
            const char *s = traffic_line(b->c, first + i, &len);
            if (ap_message_decode_opts(s, len, &keep, &mf[i], &b->dopt, NULL) != APS_OK ||
                apz_message_decode_opts(s, len, &keep, &mz[i], &b->dopt, NULL) != APS_OK)
                b->failed = 1;
        }
        encode_batch(b, &w, mf, n, 0, 1); /* untimed: the writer's buffer grows to the largest message */
        *fast += encode_batch(b, &w, mf, n, 0, repeat);
        *size += encode_batch(b, &w, mz, n, 1, repeat);
    }
    if (mf == NULL || mz == NULL)
        b->failed = 1;
    free(mf);
    free(mz);
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&keep);
}

static void report(const char *what, double secs, const size_bench *b)
{
    printf("%-34s %9.1f MB/s %12.0f msg/s\n", what, (double)b->bytes / secs / 1e6, (double)b->c->count / secs);
}

static int run_corpus(const char *name, const traffic_corpus *c, int repeat)
{
    size_bench b;
    double dec_fast = 1e300, dec_size = 1e300, enc_fast = 0, enc_size = 0;
    char what[64];
    int k;
    memset(&b, 0, sizeof b);
    b.c = c;
    b.bytes = c->len - c->count;
    b.dopt.strict = true;
    aps_arena_init(&b.arena, NULL);
    check_same(&b);
    for (k = 0; k < repeat && !b.failed; k++) {
        double f = decode_fast(&b), z = decode_size(&b);
        dec_fast = f < dec_fast ? f : dec_fast;
        dec_size = z < dec_size ? z : dec_size;
    }
    if (!b.failed)
        encode_both(&b, repeat, &enc_fast, &enc_size);
    aps_arena_deinit(&b.arena);
    if (b.failed)
        return 1;
    printf("%s: %zu messages, %.1f MB\n", name, c->count, (double)b.bytes / 1e6);
    snprintf(what, sizeof what, "%s: decode, fast", name);
    report(what, dec_fast, &b);
    snprintf(what, sizeof what, "%s: decode, --size", name);
    report(what, dec_size, &b);
    snprintf(what, sizeof what, "%s: encode checked, fast", name);
    report(what, enc_fast, &b);
    snprintf(what, sizeof what, "%s: encode checked, --size", name);
    report(what, enc_size, &b);
    printf("ratio %s decode size/fast %.2f\n", name, dec_fast / dec_size);
    printf("ratio %s encode size/fast %.2f\n", name, enc_fast / enc_size);
    return 0;
}

int bench_size(const bench_config *cfg)
{
    traffic_corpus c;
    int rc;
    if (traffic_generate(cfg->corpus_bytes, cfg->seed, &c) != 0) {
        fprintf(stderr, "bench_size: out of memory generating the corpus\n");
        return 1;
    }
    rc = run_corpus("codec", &c, cfg->repeat);
    traffic_free(&c);
    if (rc != 0)
        return rc;
    if (traffic_generate_snapshots(cfg->corpus_bytes / 4, cfg->seed, &c) != 0) {
        fprintf(stderr, "bench_size: out of memory generating the snapshots\n");
        return 1;
    }
    rc = run_corpus("snapshots", &c, cfg->repeat);
    traffic_free(&c);
    return rc;
}
