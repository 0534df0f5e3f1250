/*
 * bench_assemble.c - the message assembler on a token-by-token stream.
 *
 * Events are pre-built apr_asm_event views (what a caller has after
 * decoding): one message per 4 MiB of text in namespace
 * ["model_request:<uuid>"], node "model", one text block, deltas of one
 * token each (1 to 8 bytes, mean 4.5, like LLM tokens). The clock runs over
 * apr_asm_feed only. Reported: appended text bytes per second and events
 * per second, without callbacks, with callbacks (on_append summing the
 * bytes, as a renderer would see them, and on_message_done), with the same
 * text in 64-byte deltas, with 8 messages interleaved token by token in 8
 * namespaces (the lookup path), and coalesce-then-assemble. Each rate is
 * given by wall clock and by the thread's CPU time (on a loaded machine the
 * latter is the steadier one), best of --repeat runs.
 */
#include "bench.h"

#include "apr_assemble.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 1024u /* pre-built delta events, reused cyclically: cache-hot, as an event is right after decoding */
#define MESSAGE_BYTES (4u << 20) /* text per message before it is finished */
#define PLACES 8

typedef struct sink {
    uint64_t appended;
    uint64_t messages;
} sink;

static void on_append(void *ctx, const apr_asm_message *m, uint64_t index, apr_asm_delta kind,
                      apr_slice appended)
{
    (void)m;
    (void)index;
    (void)kind;
    ((sink *)ctx)->appended += appended.len;
}

static void on_done(void *ctx, const apr_asm_message *m)
{
    (void)m;
    ((sink *)ctx)->messages++;
}

typedef struct corpus {
    apr_asm_event *deltas;   /* RING deltas; ns/node set per run */
    char *text;
    apr_slice ns[PLACES];
    apr_slice node;
} corpus;

static const char *const ns_names[PLACES] = {
    "model_request:db60c136-bbdc-5c76-a665-4bd487797692", "model_request:03dd88a7-d731-50f4-9502-0c40616d3b07",
    "tools:dd864e2c-ffd0-5630-8613-603347e3a46e",         "researcher:0a1b2c3d",
    "writer:4e5f6a7b",                                     "critic:8c9d0e1f",
    "planner:2a3b4c5d",                                    "summarizer:6e7f8091",
};

/* Builds RING deltas over a text pool; `fixed` > 0 gives deltas of that length. */
static int corpus_build(corpus *c, uint64_t seed, size_t fixed)
{
    size_t pool = (size_t)RING * 64, at = 0, i;
    uint64_t s = seed;
    memset(c, 0, sizeof *c);
    c->deltas = (apr_asm_event *)calloc(RING, sizeof *c->deltas);
    c->text = (char *)malloc(pool);
    if (c->deltas == NULL || c->text == NULL)
        return 1;
    for (i = 0; i < pool; i++)
        c->text[i] = (char)("etaoin shrdlu\n\"cmfwyp"[bench_rand(&s) % 22]);
    for (i = 0; i < PLACES; i++) {
        c->ns[i].ptr = ns_names[i];
        c->ns[i].len = strlen(ns_names[i]);
    }
    c->node.ptr = "model";
    c->node.len = 5;
    for (i = 0; i < RING; i++) {
        apr_asm_event *e = &c->deltas[i];
        size_t len = fixed ? fixed : 1 + (size_t)(bench_rand(&s) % 8);
        if (at + len > pool)
            at = 0;
        e->kind = APR_ASM_BLOCK_DELTA;
        e->delta = APR_ASM_DELTA_TEXT;
        e->index = 0;
        e->text.ptr = c->text + at;
        e->text.len = len;
        e->node = c->node;
        e->ns_len = 1;
        at += len;
    }
    return 0;
}

static void corpus_free(corpus *c)
{
    free(c->deltas);
    free(c->text);
}

typedef struct run {
    uint64_t bytes, events;
    double seconds;     /* wall clock */
    double cpu_seconds; /* this thread's CPU time: steadier on a shared machine */
    int failed;
} run;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Starts message `id` with one text block in place `p`. */
static int open_message(apr_assembler *a, const corpus *c, size_t p)
{
    apr_asm_event e;
    memset(&e, 0, sizeof e);
    e.ns = &c->ns[p];
    e.ns_len = 1;
    e.node = c->node;
    e.kind = APR_ASM_MESSAGE_START;
    e.id.ptr = "msg_01M6YsZj7Wn3ivDWCFZFrmt7";
    e.id.len = 28;
    e.role.ptr = "ai";
    e.role.len = 2;
    if (apr_asm_feed(a, &e, NULL) != APR_OK)
        return 1;
    e.kind = APR_ASM_BLOCK_START;
    e.content.ptr = "{\"type\":\"text\",\"text\":\"\"}";
    e.content.len = strlen(e.content.ptr);
    return apr_asm_feed(a, &e, NULL) != APR_OK;
}

static int close_message(apr_assembler *a, const corpus *c, size_t p)
{
    apr_asm_event e;
    memset(&e, 0, sizeof e);
    e.ns = &c->ns[p];
    e.ns_len = 1;
    e.node = c->node;
    e.kind = APR_ASM_BLOCK_FINISH;
    e.content.ptr = "{\"type\":\"text\",\"text\":\"(final text)\"}";
    e.content.len = strlen(e.content.ptr);
    if (apr_asm_feed(a, &e, NULL) != APR_OK)
        return 1;
    e.kind = APR_ASM_MESSAGE_FINISH;
    e.usage.ptr = "{\"outputTokens\":1}";
    e.usage.len = strlen(e.usage.ptr);
    return apr_asm_feed(a, &e, NULL) != APR_OK;
}

/* The coalescer's output goes straight into the assembler. */
static apr_status emit(void *ctx, const apr_asm_event *ev)
{
    return apr_asm_feed((apr_assembler *)ctx, ev, NULL);
}

/*
 * Feeds about `total` bytes of deltas, `places` messages interleaved delta
 * by delta; each message is finished after MESSAGE_BYTES and a new one
 * started. With `coalesce`, events go through the coalescer first.
 */
static run assemble(const bench_config *cfg, corpus *c, size_t total, size_t places,
                    const apr_asm_callbacks *cb, int coalesce)
{
    run best = { 0, 0, 1e30, 1e30, 0 };
    int r;
    for (r = 0; r < cfg->repeat; r++) {
        apr_assembler a;
        apr_asm_coalescer co;
        uint64_t bytes = 0, events = 0, since = 0;
        size_t i = 0, p;
        double t0, c0, t, ct;
        apr_asm_init(&a, NULL, cb);
        apr_asm_coalescer_init(&co, NULL, emit, &a);
        for (p = 0; p < places; p++)
            best.failed |= open_message(&a, c, p);
        t0 = bench_now();
        c0 = cpu_now();
        while (bytes < total) {
            apr_asm_event *e = &c->deltas[i];
            p = i % places;
            e->ns = &c->ns[p];
            e->position = events;
            if (coalesce)
                best.failed |= apr_asm_coalescer_push(&co, e) != APR_OK;
            else
                best.failed |= apr_asm_feed(&a, e, NULL) != APR_OK;
            bytes += e->text.len;
            since += e->text.len;
            events++;
            if (++i == RING)
                i = 0;
            if (since >= MESSAGE_BYTES * places) {
                if (coalesce)
                    best.failed |= apr_asm_coalescer_flush(&co) != APR_OK;
                for (p = 0; p < places; p++)
                    best.failed |= close_message(&a, c, p) | open_message(&a, c, p);
                since = 0;
            }
        }
        if (coalesce)
            best.failed |= apr_asm_coalescer_flush(&co) != APR_OK;
        t = bench_now() - t0;
        ct = cpu_now() - c0;
        best.failed |= apr_asm_violations(&a) != 0;
        apr_asm_finish(&a);
        apr_asm_deinit(&a);
        apr_asm_coalescer_deinit(&co);
        if (ct < best.cpu_seconds)
            best.cpu_seconds = ct;
        if (t < best.seconds) {
            best.seconds = t;
            best.bytes = bytes;
            best.events = events;
        }
    }
    return best;
}

static void report(const char *what, run r)
{
    printf("%-40s wall %7.1f MB/s %6.1f M ev/s %6.2f ns/ev | cpu %7.1f MB/s %6.2f ns/ev%s\n",
           what, (double)r.bytes / r.seconds / 1e6, (double)r.events / r.seconds / 1e6,
           r.seconds * 1e9 / (double)r.events, (double)r.bytes / r.cpu_seconds / 1e6,
           r.cpu_seconds * 1e9 / (double)r.events, r.failed ? "  (FAILED)" : "");
}

int bench_assemble(const bench_config *cfg)
{
    corpus tok, big;
    apr_asm_callbacks cb;
    sink s;
    size_t total = cfg->corpus_bytes < (8u << 20) ? (8u << 20) : cfg->corpus_bytes;
    run r;
    int failed = 0;
    if (corpus_build(&tok, cfg->seed, 0) || corpus_build(&big, cfg->seed, 64)) {
        fprintf(stderr, "assemble: out of memory\n");
        return 1;
    }
    printf("%.0f MB of text per run, %u pre-built delta events reused cyclically, "
           "messages of %u MiB; best of %d\n",
           (double)total / 1e6, RING, MESSAGE_BYTES >> 20, cfg->repeat);
    memset(&cb, 0, sizeof cb);
    memset(&s, 0, sizeof s);

    r = assemble(cfg, &tok, total, 1, NULL, 0);
    report("token deltas (1-8 B), no callbacks", r);
    failed |= r.failed;

    cb.on_append = on_append;
    cb.on_message_done = on_done;
    cb.ctx = &s;
    r = assemble(cfg, &tok, total, 1, &cb, 0);
    report("token deltas (1-8 B), callbacks on", r);
    failed |= r.failed || s.appended == 0;

    r = assemble(cfg, &big, total, 1, NULL, 0);
    report("64-byte deltas, no callbacks", r);
    failed |= r.failed;

    r = assemble(cfg, &tok, total, PLACES, NULL, 0);
    report("token deltas, 8 messages interleaved", r);
    failed |= r.failed;

    r = assemble(cfg, &tok, total, 1, NULL, 1);
    report("token deltas, coalesced (64 ev, 4 KiB)", r);
    failed |= r.failed;

    corpus_free(&tok);
    corpus_free(&big);
    return failed;
}
