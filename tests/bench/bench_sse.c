/*
 * bench_sse.c - SSE parse throughput next to the physical limit, a plain
 * memchr('\n') scan of the same bytes.
 *
 * The stream looks like the recorded trace: `event:`, one `data:` line of
 * compact JSON (50-3000 bytes, mostly short deltas), `id:`, a blank line, and
 * now and then a `: keepalive` heartbeat. The trace's data is pure ASCII (JSON
 * encoders escape non-ASCII by default); here one word in 128 is non-ASCII so
 * the UTF-8 check's slow path is exercised. The stream is parsed in 64 KiB
 * pushes, as reads from a socket would arrive; the memchr scan gets the whole
 * buffer at once.
 */
#include "bench.h"

#include "aps/sse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PUSH_BYTES (64u << 10)

static const char *const methods[] = { "messages", "values", "updates", "lifecycle",
                                       "tools", "custom" };

static const char *const words[] = { "the", "agent", "calls", "a", "tool", "and",
                                     "streams", "tokens", "to", "client", "result",
                                     "value", "12345", "67890", "\\n", "done" };

typedef struct corpus {
    char *bytes;
    size_t len, events, lines;
} corpus;

static size_t put(char *dst, const char *s)
{
    size_t n = strlen(s);
    memcpy(dst, s, n);
    return n;
}

/* Writes one event (at most ~3.3 KB); returns its size. */
static size_t write_event(char *dst, uint64_t seq, uint64_t *rng)
{
    size_t n, json;
    const char *method = methods[test_rand(rng) % 6];
    /* JSON size: mostly small deltas, sometimes a large values snapshot. */
    size_t target = test_rand(rng) % 10 < 7 ? 50 + test_rand(rng) % 350
                                             : 400 + test_rand(rng) % 2600;
    n = (size_t)sprintf(dst, "event: %s\ndata: ", method);
    json = n;
    if (target >= 200)
        n += (size_t)sprintf(dst + n,
                             "{\"type\":\"event\",\"event_id\":\"%llu\",\"seq\":%llu,"
                             "\"method\":\"%s\",\"params\":{\"namespace\":[],"
                             "\"timestamp\":%llu,\"data\":{\"text\":\"",
                             (unsigned long long)seq, (unsigned long long)seq, method,
                             1777587969651ull + seq);
    else
        n += put(dst + n, "{\"type\":\"event\",\"params\":{\"data\":{\"text\":\"");
    while (n - json + 16 < target) {
        uint64_t pick = test_rand(rng);
        n += put(dst + n, pick % 128 == 0 ? "caf\xC3\xA9" : words[pick % 16]);
        dst[n++] = ' ';
    }
    n += put(dst + n, "\"}}}\n");
    n += (size_t)sprintf(dst + n, "id: %llu\n\n", (unsigned long long)seq);
    return n;
}

static int make_corpus(corpus *c, size_t want, uint64_t seed)
{
    uint64_t rng = seed, seq = 0;
    c->bytes = malloc(want + 8192);
    c->len = c->events = c->lines = 0;
    if (c->bytes == NULL)
        return -1;
    /* 8 KB of slack always fits one more event */
    while (c->len < want) {
        if (test_rand(&rng) % 50 == 0) {
            c->len += put(c->bytes + c->len, ": keepalive\n\n");
            c->lines += 2;
        }
        c->len += write_event(c->bytes + c->len, ++seq, &rng);
        c->events++;
        c->lines += 4;
    }
    return 0;
}

static aps_status count_event(void *user, const aps_sse_event *ev)
{
    size_t *n = user;
    (void)ev;
    ++*n;
    return APS_OK;
}

/* Best time of `repeat` parses; the event count of the last in *events. */
static double time_parse(const corpus *c, int repeat, const aps_sse_options *opts,
                         char *storage, size_t cap, size_t *events)
{
    double best = 1e30;
    int r;
    for (r = 0; r < repeat; r++) {
        aps_sse_parser p;
        size_t at, n = 0;
        double t0 = bench_now(), dt;
        aps_sse_parser_init(&p, storage, cap, opts, count_event, NULL, &n);
        for (at = 0; at < c->len; at += PUSH_BYTES) {
            size_t k = c->len - at < PUSH_BYTES ? c->len - at : PUSH_BYTES;
            if (aps_sse_parser_push(&p, c->bytes + at, k, NULL) != APS_OK)
                return -1;
        }
        if (aps_sse_parser_finish(&p, NULL) != APS_OK)
            return -1;
        dt = bench_now() - t0;
        if (dt < best)
            best = dt;
        *events = n;
    }
    return best;
}

static double time_memchr(const corpus *c, int repeat, size_t *lines)
{
    double best = 1e30;
    int r;
    for (r = 0; r < repeat; r++) {
        const char *p = c->bytes, *end = c->bytes + c->len;
        size_t n = 0;
        double t0 = bench_now(), dt;
        while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            n++;
            p++;
        }
        dt = bench_now() - t0;
        if (dt < best)
            best = dt;
        *lines = n;
    }
    return best;
}

int bench_sse(const bench_config *cfg)
{
    static char storage[1 << 16];
    corpus c;
    aps_sse_options plain = { 0 }, no_utf8 = { 1 };
    size_t events = 0, events_raw = 0, lines = 0;
    double t_sse, t_raw, t_memchr, mb;
    if (make_corpus(&c, cfg->corpus_bytes, cfg->seed) != 0) {
        fprintf(stderr, "sse: cannot allocate %zu bytes\n", cfg->corpus_bytes);
        return 1;
    }
    mb = (double)c.len / (1024.0 * 1024.0);
    t_memchr = time_memchr(&c, cfg->repeat, &lines);
    t_sse = time_parse(&c, cfg->repeat, &plain, storage, sizeof storage, &events);
    t_raw = time_parse(&c, cfg->repeat, &no_utf8, storage, sizeof storage, &events_raw);
    printf("stream: %.1f MB, %zu events, %zu lines, pushed in %u KiB pieces\n", mb, c.events,
           c.lines, PUSH_BYTES >> 10);
    if (t_sse < 0 || t_raw < 0 || events != c.events || events_raw != c.events ||
        lines != c.lines) {
        fprintf(stderr, "sse: count mismatch (events %zu/%zu/%zu, lines %zu/%zu)\n", events,
                events_raw, c.events, lines, c.lines);
        free(c.bytes);
        return 1;
    }
    printf("sse parse (UTF-8 checked)    %8.1f MB/s  %zu events\n", mb / t_sse, events);
    printf("sse parse (UTF-8 unchecked)  %8.1f MB/s  %zu events\n", mb / t_raw, events_raw);
    printf("memchr('\\n') scan            %8.1f MB/s  %zu lines\n", mb / t_memchr, lines);
    printf("ratio sse/memchr %.2f\n", t_memchr / t_sse);
    free(c.bytes);
    return 0;
}
