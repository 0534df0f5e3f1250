/*
 * bench_json.c - the runtime's JSON core on generated protocol traffic
 * (traffic.h), message by message, against cJSON and jansson when present:
 * validation, a skipping reader walk, a full pull walk, parse-only of the
 * baselines, and printing (our writer replaying each parsed message vs
 * cJSON_PrintUnformatted). Prints MB/s, messages/s and ratios.
 */
#include "bench.h"
#include "traffic.h"

#include "aps/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CJSON
#include <cjson/cJSON.h>
#endif
#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

typedef struct json_bench {
    const traffic_corpus *c;
    aps_arena arena;
    aps_json_writer writer;
    size_t sink; /* keeps results observable so nothing is optimised away */
    int failed;
} json_bench;


static void run_validate(json_bench *b)
{
    size_t i, len;
    for (i = 0; i < b->c->count; i++) {
        const char *s = traffic_line(b->c, i, &len);
        if (aps_json_validate(s, len, NULL, NULL) != APS_OK)
            b->failed = 1;
    }
}

static void run_skip(json_bench *b)
{
    size_t i, len;
    for (i = 0; i < b->c->count; i++) {
        const char *s = traffic_line(b->c, i, &len);
        aps_json_reader r;
        aps_arena_reset(&b->arena);
        aps_json_reader_init(&r, s, len, &b->arena, NULL);
        if (aps_json_skip(&r, NULL) != APS_OK || aps_json_reader_finish(&r, NULL) != APS_OK)
            b->failed = 1;
    }
}

/* One message token by token through the pull API, optionally re-emitting it. */
static int walk(json_bench *b, const char *s, size_t len, aps_json_writer *w)
{
    aps_json_reader r;
    unsigned char is_obj[APS_JSON_MAX_DEPTH_DEFAULT + 1];
    size_t depth = 0;
    int started = 0;
    aps_json_reader_init(&r, s, len, &b->arena, NULL);
    for (;;) {
        aps_slice t;
        int more = 1, v;
        while (depth > 0) {
            if (is_obj[depth]) {
                if (aps_json_next_member(&r, &t, &more, NULL) != APS_OK)
                    return 0;
                if (more) {
                    if (w)
                        aps_json_write_key(w, t.ptr, t.len);
                    break;
                }
                if (w)
                    aps_json_write_object_end(w);
            } else {
                if (aps_json_next_element(&r, &more, NULL) != APS_OK)
                    return 0;
                if (more)
                    break;
                if (w)
                    aps_json_write_array_end(w);
            }
            depth--;
        }
        if (depth == 0 && started)
            break;
        started = 1;
        switch (aps_json_peek(&r)) {
        case APS_JSON_OBJECT:
            if (aps_json_read_object(&r, NULL) != APS_OK)
                return 0;
            if (w)
                aps_json_write_object_begin(w);
            is_obj[++depth] = 1;
            break;
        case APS_JSON_ARRAY:
            if (aps_json_read_array(&r, NULL) != APS_OK)
                return 0;
            if (w)
                aps_json_write_array_begin(w);
            is_obj[++depth] = 0;
            break;
        case APS_JSON_STRING:
            if (aps_json_read_string(&r, &t, NULL) != APS_OK)
                return 0;
            if (w)
                aps_json_write_string(w, t.ptr, t.len);
            b->sink += t.len;
            break;
        case APS_JSON_NUMBER: {
            int64_t n;
            if (aps_json_read_int64(&r, &n, NULL) == APS_OK) {
                if (w)
                    aps_json_write_int64(w, n);
                b->sink += (size_t)n;
            } else {
                double d;
                if (aps_json_read_double(&r, &d, NULL) != APS_OK)
                    return 0;
                if (w)
                    aps_json_write_double(w, d);
            }
            break;
        }
        case APS_JSON_BOOL:
            if (aps_json_read_bool(&r, &v, NULL) != APS_OK)
                return 0;
            if (w)
                aps_json_write_bool(w, v);
            break;
        case APS_JSON_NULL:
            if (aps_json_read_null(&r, NULL) != APS_OK)
                return 0;
            if (w)
                aps_json_write_null(w);
            break;
        default:
            return 0;
        }
        if (depth == 0)
            break;
    }
    return aps_json_reader_finish(&r, NULL) == APS_OK;
}

static void run_walk(json_bench *b)
{
    size_t i, len;
    for (i = 0; i < b->c->count; i++) {
        const char *s = traffic_line(b->c, i, &len);
        aps_arena_reset(&b->arena);
        if (!walk(b, s, len, NULL))
            b->failed = 1;
    }
}

/*
 * A parsed message for the print benchmark: the writer calls it takes,
 * recorded once (untimed) so that printing is measured alone, as cJSON's is.
 */
enum { OP_OBJ, OP_OBJ_END, OP_ARR, OP_ARR_END, OP_KEY, OP_STR, OP_INT, OP_DBL, OP_TRUE, OP_FALSE, OP_NULL };

typedef struct op {
    int kind;
    const char *ptr;
    size_t len;
    int64_t i;
    double d;
} op;

typedef struct tape {
    op *ops;
    size_t n, cap;
    size_t *msg_end; /* ops index where each message ends */
} tape;

static void tape_push(tape *t, int kind, const char *ptr, size_t len, int64_t i, double d)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->ops = (op *)realloc(t->ops, t->cap * sizeof *t->ops);
        if (t->ops == NULL)
            abort();
    }
    t->ops[t->n].kind = kind;
    t->ops[t->n].ptr = ptr;
    t->ops[t->n].len = len;
    t->ops[t->n].i = i;
    t->ops[t->n].d = d;
    t->n++;
}

/* Records a message by walking it (strings unescaped into the arena `keep`). */
static int tape_record(tape *t, const char *s, size_t len, aps_arena *keep)
{
    aps_json_reader r;
    unsigned char is_obj[APS_JSON_MAX_DEPTH_DEFAULT + 1];
    size_t depth = 0;
    int started = 0;
    aps_json_reader_init(&r, s, len, keep, NULL);
    for (;;) {
        aps_slice x;
        int more = 1, v;
        while (depth > 0) {
            if (is_obj[depth]) {
                if (aps_json_next_member(&r, &x, &more, NULL) != APS_OK)
                    return 0;
                if (more) {
                    tape_push(t, OP_KEY, x.ptr, x.len, 0, 0);
                    break;
                }
                tape_push(t, OP_OBJ_END, NULL, 0, 0, 0);
            } else {
                if (aps_json_next_element(&r, &more, NULL) != APS_OK)
                    return 0;
                if (more)
                    break;
                tape_push(t, OP_ARR_END, NULL, 0, 0, 0);
            }
            depth--;
        }
        if (depth == 0 && started)
            break;
        started = 1;
        switch (aps_json_peek(&r)) {
        case APS_JSON_OBJECT:
            if (aps_json_read_object(&r, NULL) != APS_OK)
                return 0;
            tape_push(t, OP_OBJ, NULL, 0, 0, 0);
            is_obj[++depth] = 1;
            break;
        case APS_JSON_ARRAY:
            if (aps_json_read_array(&r, NULL) != APS_OK)
                return 0;
            tape_push(t, OP_ARR, NULL, 0, 0, 0);
            is_obj[++depth] = 0;
            break;
        case APS_JSON_STRING:
            if (aps_json_read_string(&r, &x, NULL) != APS_OK)
                return 0;
            tape_push(t, OP_STR, x.ptr, x.len, 0, 0);
            break;
        case APS_JSON_NUMBER: {
            int64_t n;
            double d;
            aps_json_pos pos;
            aps_json_reader_save(&r, &pos);
            if (aps_json_read_int64(&r, &n, NULL) == APS_OK) {
                tape_push(t, OP_INT, NULL, 0, n, 0);
            } else {
                aps_json_reader_restore(&r, &pos);
                if (aps_json_read_double(&r, &d, NULL) != APS_OK)
                    return 0;
                tape_push(t, OP_DBL, NULL, 0, 0, d);
            }
            break;
        }
        case APS_JSON_BOOL:
            if (aps_json_read_bool(&r, &v, NULL) != APS_OK)
                return 0;
            tape_push(t, v ? OP_TRUE : OP_FALSE, NULL, 0, 0, 0);
            break;
        case APS_JSON_NULL:
            if (aps_json_read_null(&r, NULL) != APS_OK)
                return 0;
            tape_push(t, OP_NULL, NULL, 0, 0, 0);
            break;
        default:
            return 0;
        }
        if (depth == 0)
            break;
    }
    return aps_json_reader_finish(&r, NULL) == APS_OK;
}

static void tape_play(const op *o, const op *end, aps_json_writer *w)
{
    for (; o < end; o++) {
        switch (o->kind) {
        case OP_OBJ: aps_json_write_object_begin(w); break;
        case OP_OBJ_END: aps_json_write_object_end(w); break;
        case OP_ARR: aps_json_write_array_begin(w); break;
        case OP_ARR_END: aps_json_write_array_end(w); break;
        case OP_KEY: aps_json_write_key(w, o->ptr, o->len); break;
        case OP_STR: aps_json_write_string(w, o->ptr, o->len); break;
        case OP_INT: aps_json_write_int64(w, o->i); break;
        case OP_DBL: aps_json_write_double(w, o->d); break;
        case OP_TRUE: aps_json_write_bool(w, 1); break;
        case OP_FALSE: aps_json_write_bool(w, 0); break;
        default: aps_json_write_null(w); break;
        }
    }
}

static int contains(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle), i;
    for (i = 0; i + n <= len; i++) {
        if (s[i] == needle[0] && memcmp(s + i, needle, n) == 0)
            return 1;
    }
    return 0;
}

static void report(const char *what, double secs, size_t bytes, size_t msgs)
{
    printf("%-34s %9.1f MB/s %12.0f msg/s\n", what, (double)bytes / secs / 1e6, (double)msgs / secs);
}

/* Best time of `repeat` runs of fn. */
static double best_of(json_bench *b, int repeat, void (*fn)(json_bench *))
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

#ifdef HAVE_CJSON
static void run_cjson(json_bench *b)
{
    if (traffic_parse_cjson(b->c) != 0)
        b->failed = 1;
}
#endif

#ifdef HAVE_JANSSON
static void run_jansson(json_bench *b)
{
    if (traffic_parse_jansson(b->c) != 0)
        b->failed = 1;
}
#endif

/*
 * Printing, in batches of messages so the parsed forms fit in memory: each
 * batch is parsed untimed (our tape, cJSON trees), then printed timed.
 */
static void bench_print(json_bench *b, int repeat, double *ours, double *cjson)
{
    const size_t batch = 4096;
    size_t first, i, len;
    tape t;
    aps_arena keep;
    memset(&t, 0, sizeof t);
    t.msg_end = (size_t *)malloc(batch * sizeof *t.msg_end);
    aps_arena_init(&keep, NULL);
    *ours = *cjson = 0;
    for (first = 0; first < b->c->count; first += batch) {
        size_t last = first + batch < b->c->count ? first + batch : b->c->count;
        double best = 1e300;
        int k;
#ifdef HAVE_CJSON
        cJSON **trees = (cJSON **)malloc((last - first) * sizeof *trees);
#endif
        t.n = 0;
        aps_arena_reset(&keep);
        for (i = first; i < last; i++) {
            const char *s = traffic_line(b->c, i, &len);
            if (!tape_record(&t, s, len, &keep))
                b->failed = 1;
            t.msg_end[i - first] = t.n;
        }
        for (k = 0; k < repeat; k++) {
            double t0 = bench_now(), dt;
            size_t from = 0;
            for (i = first; i < last; i++) {
                aps_json_writer_reset(&b->writer);
                tape_play(t.ops + from, t.ops + t.msg_end[i - first], &b->writer);
                from = t.msg_end[i - first];
                if (aps_json_writer_finish(&b->writer, NULL) != APS_OK)
                    b->failed = 1;
                b->sink += aps_json_writer_len(&b->writer);
            }
            dt = bench_now() - t0;
            if (dt < best)
                best = dt;
        }
        *ours += best;
#ifdef HAVE_CJSON
        for (i = first; i < last; i++) {
            const char *s = traffic_line(b->c, i, &len);
            trees[i - first] = cJSON_ParseWithLength(s, len);
        }
        best = 1e300;
        for (k = 0; k < repeat; k++) {
            double t0 = bench_now(), dt;
            for (i = first; i < last; i++) {
                char *out = cJSON_PrintUnformatted(trees[i - first]);
                if (out == NULL)
                    b->failed = 1;
                else
                    b->sink += strlen(out);
                cJSON_free(out);
            }
            dt = bench_now() - t0;
            if (dt < best)
                best = dt;
        }
        *cjson += best;
        for (i = first; i < last; i++)
            cJSON_Delete(trees[i - first]);
        free(trees);
#endif
    }
    aps_arena_deinit(&keep);
    free(t.ops);
    free(t.msg_end);
}

int bench_json(const bench_config *cfg)
{
    traffic_corpus c;
    json_bench b;
    double t_validate, t_skip, t_walk, t_print, t_cjson_print = 0;
    size_t calls_before, bytes, i, deltas = 0;
    if (traffic_generate(cfg->corpus_bytes, cfg->seed, &c) != 0) {
        fprintf(stderr, "bench_json: out of memory generating traffic\n");
        return 1;
    }
    for (i = 0; i < c.count; i++) {
        size_t len;
        const char *s = traffic_line(&c, i, &len);
        if (contains(s, len, "content-block-delta"))
            deltas++;
    }
    bytes = c.len - c.count; /* JSON bytes, newlines excluded */
    printf("corpus: %zu messages, %.1f MB, %.0f bytes/message, %.1f%% content-block-delta (seed %llu)\n",
           c.count, (double)bytes / 1e6, (double)bytes / (double)c.count,
           100.0 * (double)deltas / (double)c.count, (unsigned long long)cfg->seed);
    memset(&b, 0, sizeof b);
    b.c = &c;
    aps_arena_init(&b.arena, NULL);
    aps_json_writer_init(&b.writer, NULL);

    t_validate = best_of(&b, cfg->repeat, run_validate);
    report("aps_json_validate", t_validate, bytes, c.count);
    run_walk(&b); /* warm the arena (the walk needs the most of it), then count */
    calls_before = aps_arena_malloc_calls(&b.arena);
    t_skip = best_of(&b, cfg->repeat, run_skip);
    report("reader walk, aps_json_skip", t_skip, bytes, c.count);
    t_walk = best_of(&b, cfg->repeat, run_walk);
    report("reader walk, every token read", t_walk, bytes, c.count);
    printf("arena malloc calls per message once warm: %.6f\n",
           (double)(aps_arena_malloc_calls(&b.arena) - calls_before) /
               ((double)c.count * 2.0 * cfg->repeat));
#ifdef HAVE_CJSON
    {
        double t = best_of(&b, cfg->repeat, run_cjson);
        report("cJSON_ParseWithLength (+Delete)", t, bytes, c.count);
        printf("ratio validate/cjson %.2f\n", t / t_validate);
        printf("ratio skip/cjson %.2f\n", t / t_skip);
        printf("ratio walk/cjson %.2f\n", t / t_walk);
    }
#endif
#ifdef HAVE_JANSSON
    {
        double t = best_of(&b, cfg->repeat, run_jansson);
        report("jansson json_loadb (+decref)", t, bytes, c.count);
        printf("ratio walk/jansson %.2f\n", t / t_walk);
    }
#endif
    bench_print(&b, cfg->repeat, &t_print, &t_cjson_print);
    report("aps_json_writer print (parsed)", t_print, bytes, c.count);
#ifdef HAVE_CJSON
    report("cJSON_PrintUnformatted", t_cjson_print, bytes, c.count);
    printf("ratio print/cjson %.2f\n", t_cjson_print / t_print);
#endif
    if (b.failed)
        fprintf(stderr, "bench_json: some message failed to parse or print\n");
    printf("(checksum %zu)\n", b.sink);
    aps_json_writer_deinit(&b.writer);
    aps_arena_deinit(&b.arena);
    traffic_free(&c);
    return b.failed;
}
