/*
 * bench_codec.c - the generated Message codec (generated/ap.c) on realistic
 * protocol traffic (traffic.h), message by message, against cJSON and
 * jansson when present:
 *
 *   decode+validate  ap_message_decode_opts, strict, the default key case
 *                    (either spelling), the arena reset before each
 *                    message: the decoder checks
 *                    every constraint of the schema as it reads (on success
 *                    the value passes ap_message_validate; fuzzed), so this
 *                    is the one pass that turns bytes into a validated value
 *   + revalidate     the same, then ap_message_validate on the decoded value:
 *                    a second, redundant pass, measured so that its cost is
 *                    on record too
 *   schema spelling  the same decode accepting only the schema's spelling
 *                    (the default before both were): what accepting
 *                    snake_case too costs on camelCase traffic
 *   warm rows        the decode and simdjson's DOM parse again, batch by
 *                    batch (BATCH messages, about 1 MB) with each
 *                    batch timed `repeat` times right after the other:
 *                    the input is in cache, as a message just received is,
 *                    so the rows compare the parsers and not the machine's
 *                    memory bandwidth (the first rows stream the whole
 *                    corpus from memory; on a busy machine that bounds both)
 *   encode           ap_message_encode of the decoded values into one
 *                    reused aps_json_writer, checked as the default is: the
 *                    generated encoder checks each value as it writes it
 *   encode trusted   the same with aps_encode_options.trusted: no check
 *   cJSON parse      cJSON_ParseWithLength + cJSON_Delete
 *   jansson parse    json_loadb + json_decref
 *   cJSON print      cJSON_PrintUnformatted (+ free) of parsed trees
 *   jansson print    json_dumps(JSON_COMPACT) (+ free) of parsed trees
 *   simdjson minify  simdjson::minify of DOMs parsed untimed beforehand
 *                    (a new std::string per message, as the API returns
 *                    it), and the same serializer into one reused
 *                    string_builder: the write baselines of issue 16
 *   state snapshots  the decode (alternating with simdjson's parse), the
 *                    checked and trusted encode and simdjson::minify again,
 *                    on a second corpus (a quarter of the size) of values,
 *                    updates and checkpoints events whose data are graph
 *                    states of 0.5-15 KB (traffic_generate_snapshots):
 *                    issue 34's row; aps_json_validate of the same lines
 *                    (no schema) says what the `any` check alone costs
 *
 * Every MB/s figure divides the corpus's input bytes (newlines excluded) by
 * the time, so MB/s ratios equal message-rate ratios. Printing is timed in
 * batches of messages decoded or parsed untimed beforehand. Each figure is
 * the best of cfg->repeat runs; the decode's runs and those of simdjson's
 * DOM parse of the whole corpus alternate. The arena's allocator calls are
 * counted over the timed decode runs after one warm-up pass; the encoders' and
 * printers' heap allocations over their timed runs, by malloc_count.c
 * (every malloc of the process), our encoder's after one untimed pass that
 * grows the writer's buffer to the largest message.
 */
#include "bench.h"
#include "malloc_count.h"
#include "traffic.h"

#include "ap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CJSON
#include <cjson/cJSON.h>
#endif
#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

int bench_codec(const bench_config *cfg);

/* Messages per printing batch: their decoded forms and trees stay in memory together. */
#define BATCH 4096

typedef struct codec_bench {
    const traffic_corpus *c;
    size_t bytes;        /* input bytes, newlines excluded */
    aps_arena arena;
    aps_json_writer writer;
    aps_decode_options dopt;
    aps_encode_options trusted; /* .trusted set: encoding without the check */
    aps_type tables;     /* ap_message_type without its generated encoder: the tables write */
    aps_json_writer tables_writer;
    size_t decoded;      /* messages that decoded and validated in the last decode run */
    size_t sink;         /* keeps results observable */
    int failed;
} codec_bench;

/* The bench over corpus c: strict decode, the trusted encode options, the tables without the generated encoder. */
static void codec_bench_init(codec_bench *b, const traffic_corpus *c)
{
    memset(b, 0, sizeof *b);
    b->c = c;
    b->bytes = c->len - c->count;
    b->dopt.strict = true;
    b->trusted.trusted = true;
    b->tables = ap_message_type;
    b->tables.write = NULL;
    aps_json_writer_init(&b->tables_writer, NULL);
    aps_arena_init(&b->arena, NULL);
    aps_json_writer_init(&b->writer, NULL);
}

static void codec_bench_deinit(codec_bench *b)
{
    aps_json_writer_deinit(&b->writer);
    aps_json_writer_deinit(&b->tables_writer);
    aps_arena_deinit(&b->arena);
}

static void report(const char *what, double secs, const codec_bench *b)
{
    printf("%-34s %9.1f MB/s %12.0f msg/s\n", what, (double)b->bytes / secs / 1e6, (double)b->c->count / secs);
}

static double best_of(codec_bench *b, int repeat, void (*fn)(codec_bench *))
{
    double best = 1e300;
    int k;
    for (k = 0; k < repeat; k++) {
        double t0 = bench_now(), dt;
        fn(b);
        dt = bench_now() - t0;
        if (dt < best)
            best = dt;
    }
    return best;
}

static void run_decode(codec_bench *b)
{
    size_t i, len;
    ap_message_t m;
    b->decoded = 0;
    for (i = 0; i < b->c->count; i++) {
        const char *s = traffic_line(b->c, i, &len);
        aps_arena_reset(&b->arena);
        if (ap_message_decode_opts(s, len, &b->arena, &m, &b->dopt, NULL) == APS_OK)
            b->decoded++;
    }
}

/* Decode, then validate the decoded value again: what a second pass costs. */
static void run_decode_revalidate(codec_bench *b)
{
    size_t i, len;
    ap_message_t m;
    for (i = 0; i < b->c->count; i++) {
        const char *s = traffic_line(b->c, i, &len);
        aps_arena_reset(&b->arena);
        if (ap_message_decode_opts(s, len, &b->arena, &m, &b->dopt, NULL) != APS_OK ||
            ap_message_validate(&m, true, NULL) != APS_OK)
            b->failed = 1;
    }
}

#ifdef HAVE_CJSON
static void run_cjson(codec_bench *b)
{
    if (traffic_parse_cjson(b->c) != 0)
        b->failed = 1;
}
#endif

#ifdef HAVE_JANSSON
static void run_jansson(codec_bench *b)
{
    if (traffic_parse_jansson(b->c) != 0)
        b->failed = 1;
}
#endif

#ifdef HAVE_SIMDJSON
/* simdjson_baseline.cpp: DOM-parses every message; returns how many failed. */
size_t bench_simdjson_parse(const char *data, const size_t *start, size_t count);

static void run_simdjson(codec_bench *b)
{
    if (bench_simdjson_parse(b->c->data, b->c->start, b->c->count) != 0)
        b->failed = 1;
}
#endif

/* Seconds of the printing rows, summed over the batches, and their heap allocation calls. */
typedef struct print_times {
    double ours, trusted, cjson, jansson, minify, builder;
    size_t ours_allocs, trusted_allocs, cjson_allocs, minify_allocs, builder_allocs;
} print_times;

#ifdef HAVE_SIMDJSON
/* simdjson_baseline.cpp: a batch of messages parsed into DOMs, and their serializations. */
void *bench_simdjson_docs_new(const char *data, const size_t *start, size_t first, size_t count);
size_t bench_simdjson_minify(void *docs, size_t i);
size_t bench_simdjson_builder(void *docs, size_t i);
void bench_simdjson_docs_free(void *docs);
#endif

/* Best time of `repeat` timed passes of `stmt` over the `n` messages of a batch (index i_). */
#define TIME_BATCH(best_out, repeat, n, stmt)                 \
    do {                                                      \
        int k_;                                               \
        size_t i_;                                            \
        (best_out) = 1e300;                                   \
        for (k_ = 0; k_ < (repeat); k_++) {                   \
            double t0_ = bench_now(), dt_;                    \
            for (i_ = 0; i_ < (n); i_++) {                    \
                stmt;                                         \
            }                                                 \
            dt_ = bench_now() - t0_;                          \
            if (dt_ < (best_out))                             \
                (best_out) = dt_;                             \
        }                                                     \
    } while (0)

/* TIME_BATCH, adding the time to *secs and the allocation calls made to *allocs. */
#define TIME_COUNTED(secs, allocs, repeat, n, stmt)              \
    do {                                                         \
        double best_;                                            \
        size_t calls_ = bench_malloc_calls();                    \
        TIME_BATCH(best_, repeat, n, stmt);                      \
        *(allocs) += bench_malloc_calls() - calls_;              \
        *(secs) += best_;                                        \
    } while (0)

/* The decode and simdjson's parse with the input in cache: batch by batch, each timed right after the other. */
static void bench_decode_warm(codec_bench *b, int repeat, double *ours, double *simdjson)
{
    size_t first, len;
    ap_message_t m;
    *ours = *simdjson = 0;
    for (first = 0; first < b->c->count; first += BATCH) {
        size_t n = b->c->count - first < BATCH ? b->c->count - first : BATCH;
        double best;
        TIME_BATCH(best, repeat, n, {
            const char *s = traffic_line(b->c, first + i_, &len);
            aps_arena_reset(&b->arena);
            if (ap_message_decode_opts(s, len, &b->arena, &m, &b->dopt, NULL) != APS_OK)
                b->failed = 1;
        });
        *ours += best;
#ifdef HAVE_SIMDJSON
        TIME_BATCH(best, repeat, n, {
            if (bench_simdjson_parse(b->c->data, b->c->start + first + i_, 1) != 0)
                b->failed = 1;
        });
        *simdjson += best;
#endif
    }
}

/* Encoding and the baselines' printing, batch by batch, into *t (zeroed first). */
static void bench_print(codec_bench *b, int repeat, print_times *t)
{
    ap_message_t *msgs = (ap_message_t *)malloc(BATCH * sizeof *msgs);
    aps_arena keep;
    size_t first, i, len;
#ifdef HAVE_CJSON
    cJSON **ctrees = (cJSON **)malloc(BATCH * sizeof *ctrees);
#endif
#ifdef HAVE_JANSSON
    json_t **jtrees = (json_t **)malloc(BATCH * sizeof *jtrees);
#endif
    memset(t, 0, sizeof *t);
    aps_arena_init(&keep, NULL);
    if (msgs == NULL) {
        b->failed = 1;
        return;
    }
    for (first = 0; first < b->c->count; first += BATCH) {
        size_t n = b->c->count - first < BATCH ? b->c->count - first : BATCH;
        aps_arena_reset(&keep);
        for (i = 0; i < n; i++) {
            const char *s = traffic_line(b->c, first + i, &len);
            if (ap_message_decode_opts(s, len, &keep, &msgs[i], &b->dopt, NULL) != APS_OK)
                b->failed = 1;
        }
        /* Untimed: the writer's buffer grows to the largest message, and each
         * message's text is the one the tables write (the generated encoder
         * against the table-driven one, on the whole corpus). */
        for (i = 0; i < n; i++) {
            aps_json_writer_reset(&b->writer);
            aps_json_writer_reset(&b->tables_writer);
            if (ap_message_encode(&msgs[i], &b->writer, NULL) != APS_OK ||
                aps_schema_encode(&b->tables, &msgs[i], &b->tables_writer, NULL, NULL) != APS_OK ||
                aps_json_writer_len(&b->writer) != aps_json_writer_len(&b->tables_writer) ||
                memcmp(aps_json_writer_data(&b->writer), aps_json_writer_data(&b->tables_writer),
                       aps_json_writer_len(&b->writer)) != 0) {
                fprintf(stderr, "bench_codec: message %zu: the generated encoder and the tables differ\n", first + i);
                b->failed = 1;
            }
        }
        TIME_COUNTED(&t->ours, &t->ours_allocs, repeat, n, {
            aps_json_writer_reset(&b->writer);
            if (ap_message_encode(&msgs[i_], &b->writer, NULL) != APS_OK)
                b->failed = 1;
            b->sink += aps_json_writer_len(&b->writer);
        });
        TIME_COUNTED(&t->trusted, &t->trusted_allocs, repeat, n, {
            aps_json_writer_reset(&b->writer);
            if (ap_message_encode_opts(&msgs[i_], &b->writer, &b->trusted, NULL) != APS_OK)
                b->failed = 1;
            b->sink += aps_json_writer_len(&b->writer);
        });
#ifdef HAVE_SIMDJSON
        {
            void *docs = bench_simdjson_docs_new(b->c->data, b->c->start, first, n);
            if (docs == NULL) {
                b->failed = 1;
            } else {
                TIME_COUNTED(&t->minify, &t->minify_allocs, repeat, n, b->sink += bench_simdjson_minify(docs, i_));
                TIME_COUNTED(&t->builder, &t->builder_allocs, repeat, n, b->sink += bench_simdjson_builder(docs, i_));
                bench_simdjson_docs_free(docs);
            }
        }
#endif
#ifdef HAVE_CJSON
        if (ctrees != NULL) {
            for (i = 0; i < n; i++) {
                const char *s = traffic_line(b->c, first + i, &len);
                ctrees[i] = cJSON_ParseWithLength(s, len);
            }
            TIME_COUNTED(&t->cjson, &t->cjson_allocs, repeat, n, {
                char *out = cJSON_PrintUnformatted(ctrees[i_]);
                if (out == NULL)
                    b->failed = 1;
                else
                    b->sink += strlen(out);
                free(out);
            });
            for (i = 0; i < n; i++)
                cJSON_Delete(ctrees[i]);
        }
#endif
#ifdef HAVE_JANSSON
        if (jtrees != NULL) {
            double best;
            for (i = 0; i < n; i++) {
                const char *s = traffic_line(b->c, first + i, &len);
                jtrees[i] = json_loadb(s, len, 0, NULL);
            }
            TIME_BATCH(best, repeat, n, {
                char *out = json_dumps(jtrees[i_], JSON_COMPACT);
                if (out == NULL)
                    b->failed = 1;
                else
                    b->sink += strlen(out);
                free(out);
            });
            t->jansson += best;
            for (i = 0; i < n; i++)
                json_decref(jtrees[i]);
        }
#endif
    }
#ifdef HAVE_CJSON
    free(ctrees);
#endif
#ifdef HAVE_JANSSON
    free(jtrees);
#endif
    aps_arena_deinit(&keep);
    free(msgs);
}

/* Decode runs alternating with simdjson's parse of the same lines: the best of each into *ours, *simdjson. */
static void decode_alternating(codec_bench *b, int repeat, double *ours, double *simdjson)
{
    int k;
    *ours = *simdjson = 1e300;
    for (k = 0; k < repeat; k++) {
        double t0 = bench_now(), dt;
        run_decode(b);
        dt = bench_now() - t0;
        if (dt < *ours)
            *ours = dt;
        if (b->decoded != b->c->count) {
            fprintf(stderr, "bench_codec: %zu of %zu messages failed to decode\n", b->c->count - b->decoded,
                    b->c->count);
            b->failed = 1;
        }
#ifdef HAVE_SIMDJSON
        t0 = bench_now();
        run_simdjson(b);
        dt = bench_now() - t0;
        if (dt < *simdjson)
            *simdjson = dt;
#endif
    }
}

static void run_json_validate(codec_bench *b)
{
    size_t i, len;
    for (i = 0; i < b->c->count; i++) {
        const char *s = traffic_line(b->c, i, &len);
        if (aps_json_validate(s, len, NULL, NULL) != APS_OK)
            b->failed = 1;
    }
}

/* Issue 34's row: the codec on state snapshots (values, updates, checkpoints of 0.5-15 KB). */
int bench_snapshots(const bench_config *cfg)
{
    traffic_corpus c;
    codec_bench b;
    double t_dec, t_simdjson, t_validate;
    print_times pt;
    if (traffic_generate_snapshots(cfg->corpus_bytes / 4, cfg->seed, &c) != 0) {
        fprintf(stderr, "bench_codec: out of memory generating the snapshots\n");
        return 1;
    }
    codec_bench_init(&b, &c);
    printf("state snapshots: %zu messages, %.1f MB, %.0f bytes each on average\n", c.count, (double)b.bytes / 1e6,
           (double)b.bytes / (double)c.count);
    run_decode(&b);
    decode_alternating(&b, cfg->repeat, &t_dec, &t_simdjson);
    report("snapshots: decode Message (validates)", t_dec, &b);
#ifdef HAVE_SIMDJSON
    report("snapshots: simdjson DOM parse", t_simdjson, &b);
#endif
    t_validate = best_of(&b, cfg->repeat, run_json_validate);
    report("snapshots: aps_json_validate alone", t_validate, &b);
    bench_print(&b, cfg->repeat, &pt);
    report("snapshots: encode Message (checked)", pt.ours, &b);
    report("snapshots:   trusted (no check)", pt.trusted, &b);
#ifdef HAVE_SIMDJSON
    report("snapshots: simdjson::minify", pt.minify, &b);
    printf("ratio snapshots decode/simdjson %.2f\n", t_simdjson / t_dec);
    printf("ratio snapshots encode checked/simdjson minify %.2f (trusted %.2f)\n", pt.minify / pt.ours,
           pt.minify / pt.trusted);
#endif
    if (b.failed)
        fprintf(stderr, "bench_codec: a snapshot decode, parse or print failed\n");
    codec_bench_deinit(&b);
    traffic_free(&c);
    return b.failed;
}

int bench_codec(const bench_config *cfg)
{
    traffic_corpus c;
    codec_bench b;
    double t_dec, t_dec_schema, t_reval, t_dec_warm, t_simdjson_warm, t_cjson = 0, t_jansson = 0;
    print_times pt;
    double t_simdjson;
    size_t calls_before, calls;
    if (traffic_generate(cfg->corpus_bytes, cfg->seed, &c) != 0) {
        fprintf(stderr, "bench_codec: out of memory generating the corpus\n");
        return 1;
    }
    codec_bench_init(&b, &c);
    printf("corpus: %zu messages, %.1f MB (seed %llu), best of %d\n", c.count, (double)b.bytes / 1e6,
           (unsigned long long)cfg->seed, cfg->repeat);

    run_decode(&b); /* warm-up: the arena grows to the largest message once */
    calls_before = aps_arena_malloc_calls(&b.arena);
    /* The decode and simdjson's parse alternate, run by run: the ratio of
     * the two is issue 16's bar, and a shared machine's drift between two
     * blocks of runs would move it either way. */
    decode_alternating(&b, cfg->repeat, &t_dec, &t_simdjson);
    calls = aps_arena_malloc_calls(&b.arena) - calls_before;
    report("generated strict decode Message (validates)", t_dec, &b);
    b.dopt.key_case = APS_CASE_SCHEMA;
    t_dec_schema = best_of(&b, cfg->repeat, run_decode);
    if (b.decoded != c.count)
        b.failed = 1;
    b.dopt.key_case = APS_CASE_EITHER;
    report("  schema spelling only", t_dec_schema, &b);
    t_reval = best_of(&b, cfg->repeat, run_decode_revalidate);
    report("  + ap_message_validate again", t_reval, &b);
#ifdef HAVE_CJSON
    t_cjson = best_of(&b, cfg->repeat, run_cjson);
    report("cJSON_ParseWithLength+Delete", t_cjson, &b);
#endif
#ifdef HAVE_JANSSON
    t_jansson = best_of(&b, cfg->repeat, run_jansson);
    report("jansson json_loadb+decref", t_jansson, &b);
#endif
#ifdef HAVE_SIMDJSON
    report("simdjson DOM parse (padded copy)", t_simdjson, &b);
#endif
    bench_decode_warm(&b, cfg->repeat, &t_dec_warm, &t_simdjson_warm);
    report("decode Message, input in cache", t_dec_warm, &b);
#ifdef HAVE_SIMDJSON
    report("simdjson DOM parse, input in cache", t_simdjson_warm, &b);
#endif
    bench_print(&b, cfg->repeat, &pt);
    report("generated encode Message (checked)", pt.ours, &b);
    report("  trusted (no check)", pt.trusted, &b);
#ifdef HAVE_SIMDJSON
    report("simdjson::minify of a parsed DOM", pt.minify, &b);
    report("  into one reused string_builder", pt.builder, &b);
#endif
#ifdef HAVE_CJSON
    report("cJSON_PrintUnformatted+free", pt.cjson, &b);
#endif
#ifdef HAVE_JANSSON
    report("jansson json_dumps compact+free", pt.jansson, &b);
#endif
    printf("decoded %zu of %zu messages; arena allocator calls per message (warm) %.4f (%zu over %d runs)\n",
           b.decoded, c.count, (double)calls / ((double)c.count * cfg->repeat), calls, cfg->repeat);
    printf("ratio decode either-spelling/schema-spelling %.3f\n", t_dec_schema / t_dec);
    if (bench_malloc_counting()) {
        double runs = (double)c.count * cfg->repeat;
        printf("heap allocations per message: encode checked %.4f (%zu), trusted %.4f (%zu)", (double)pt.ours_allocs / runs,
               pt.ours_allocs, (double)pt.trusted_allocs / runs, pt.trusted_allocs);
#ifdef HAVE_SIMDJSON
        printf(", simdjson::minify %.2f, string_builder %.4f", (double)pt.minify_allocs / runs,
               (double)pt.builder_allocs / runs);
#endif
#ifdef HAVE_CJSON
        printf(", cJSON print %.2f", (double)pt.cjson_allocs / runs);
#endif
        printf("\n");
    }
    printf("ratio encode checked/trusted %.3f\n", pt.trusted / pt.ours);
#ifdef HAVE_CJSON
    printf("ratio decode/cjson %.2f\n", t_cjson / t_dec);
    printf("ratio decode+revalidate/cjson %.2f\n", t_cjson / t_reval);
#endif
#ifdef HAVE_JANSSON
    printf("ratio decode/jansson %.2f\n", t_jansson / t_dec);
#endif
#ifdef HAVE_CJSON
    printf("ratio encode/cjson %.2f\n", pt.cjson / pt.ours);
#endif
#ifdef HAVE_SIMDJSON
    printf("ratio encode checked/simdjson minify %.2f (trusted %.2f)\n", pt.minify / pt.ours, pt.minify / pt.trusted);
    printf("ratio encode checked/simdjson string_builder %.2f (trusted %.2f)\n", pt.builder / pt.ours,
           pt.builder / pt.trusted);
#endif
#ifdef HAVE_SIMDJSON
    printf("ratio decode/simdjson %.2f\n", t_simdjson / t_dec);
    printf("ratio decode/simdjson, input in cache %.2f\n", t_simdjson_warm / t_dec_warm);
#endif
    if (b.failed)
        fprintf(stderr, "bench_codec: a decode, parse or print failed\n");
    codec_bench_deinit(&b);
    traffic_free(&c);
    return b.failed | bench_snapshots(cfg);
}
